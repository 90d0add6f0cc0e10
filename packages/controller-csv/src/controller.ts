import type { InstallStrategy, KubeClient, Logger, RbacGenerator, Reconciler } from '@olm/core';
import { OlmError } from '@olm/core';
import { EventRecorder, isNotFound, KubeClient as ClientNodeKubeClient } from '@olm/controller-runtime';
import type { Registry } from 'prom-client';
import { createCsvReconciler } from './csv-reconciler.js';
import { createDeploymentInstallStrategy } from './install/deployment/deployment-install.js';
import { createCsvMetrics, type CsvMetrics } from './status/metrics.js';
import { createOlmConfigReconciler } from './copies/olm-config-reconciler.js';
import type { Shared } from './shared.js';

export interface CsvControllerOptions {
  /** The client the reconcilers write with (the plugin gives the shared one). */
  readonly client?: KubeClient;
  /** Used to build a client when `client` is not given. */
  readonly kubeconfig?: string;
  readonly rbacGenerator: RbacGenerator;
  /** Install strategies by name (the plugin gives the `installStrategies` point's); default: only this package's `deployment` strategy. */
  readonly installStrategies?: ReadonlyMap<string, InstallStrategy>;
  /** A prom-client registry for csv_count, csv_succeeded, csv_abnormal, csv_upgrade_count; none: no metrics. */
  readonly metrics?: Registry;
  readonly logger?: Logger;
  /** The clock of status times, the install timeout, and the serving certificates (made and renewed with it). */
  readonly clock?: () => Date;
  /** How long a CSV may stay Installing and unhealthy before `Failed/InstallCheckFailed "install timeout"`. Default 5 min. */
  readonly installTimeoutMs?: number;
  /** Requeue of a CSV whose requirements are not met, and re-check of a Succeeded CSV's APIService and webhook resources and certificates. Default 30 s. */
  readonly requeueAfterMs?: number;
  /** Re-check of an installing CSV's health. Default 5 s (Deployment changes also trigger a check). */
  readonly healthPollMs?: number;
  /** Copy CSVs into their OperatorGroup's target namespaces (§2.7). Default true. */
  readonly copiedCsvs?: boolean;
  /**
   * Namespaces that keep the copies of AllNamespaces operators while the OLMConfig `cluster` disables
   * copies (`spec.features.disableCopiedCSVs`), as upstream's `--protectedCopiedCSVNamespaces`. Default none.
   */
  readonly protectedCopiedCsvNamespaces?: readonly string[];
  /** `source.component` of the Events. Default `olm-operator`. */
  readonly eventComponent?: string;
}

export interface CsvController {
  /**
   * The ClusterServiceVersion and OLMConfig reconcilers, for `manager.add`. CSVs also need OperatorGroups
   * reconciled: add `@olm/controller-operator-groups`' reconciler beside these.
   */
  readonly reconcilers: readonly Reconciler[];
  readonly csvReconciler: Reconciler;
  readonly olmConfigReconciler: Reconciler;
  /** The metrics, once a registry was given and a reconcile ran. */
  readonly metrics: CsvMetrics | undefined;
  /** Closes the client the controller built itself (none when `client` was given). */
  close(): void;
}

/** The OLM operator's reconcilers, as a library: add them to a controller-runtime `Manager`. */
export function createCsvController(options: CsvControllerOptions): CsvController {
  let ownClient: ClientNodeKubeClient | undefined;
  const client = (): KubeClient => {
    if (options.client) return options.client;
    if (options.kubeconfig === undefined) throw new OlmError('OLM_CSV_NO_CLIENT', 'createCsvController needs a client or a kubeconfig');
    return (ownClient ??= new ClientNodeKubeClient({ kubeconfig: options.kubeconfig }));
  };
  const strategies = options.installStrategies ?? new Map([['deployment', createDeploymentInstallStrategy()]]);
  let recorder: EventRecorder | undefined;
  let metrics: CsvMetrics | undefined;
  let metricsResolved = false;
  let serverVersion: Promise<string | undefined> | undefined;
  const shared: Shared = {
    client,
    rbac: () => options.rbacGenerator,
    strategies: () => strategies,
    recorder: () => (recorder ??= new EventRecorder({ client: client(), component: options.eventComponent ?? 'olm-operator', logger: options.logger })),
    metrics: () => {
      if (!metricsResolved) {
        metrics = options.metrics ? createCsvMetrics(options.metrics) : undefined;
        metricsResolved = true;
      }
      return metrics;
    },
    logger: () => options.logger,
    now: options.clock ?? (() => new Date()),
    serverVersion: () => {
      serverVersion ??= client()
        .request({ method: 'GET', path: '/version' })
        .then((body) => (body as { gitVersion?: string }).gitVersion)
        .catch(() => {
          serverVersion = undefined; // ask again next time
          return undefined;
        });
      return serverVersion;
    },
    servedKinds: async (groupVersion) => {
      const path = groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`;
      try {
        const list = (await client().request({ method: 'GET', path })) as { resources?: Array<{ kind?: string }> };
        return new Set((list.resources ?? []).map((resource) => resource.kind ?? ''));
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    installTimeoutMs: options.installTimeoutMs ?? 5 * 60_000,
    requeueAfterMs: options.requeueAfterMs ?? 30_000,
    healthPollMs: options.healthPollMs ?? 5_000,
    copiedCsvsEnabled: options.copiedCsvs ?? true,
    protectedCopiedCsvNamespaces: new Set(options.protectedCopiedCsvNamespaces ?? []),
  };
  const csvReconciler = createCsvReconciler(shared);
  const olmConfigReconciler = createOlmConfigReconciler(shared);
  return {
    reconcilers: [csvReconciler, olmConfigReconciler],
    csvReconciler,
    olmConfigReconciler,
    get metrics() {
      return shared.metrics();
    },
    close() {
      ownClient?.close();
      ownClient = undefined;
    },
  };
}

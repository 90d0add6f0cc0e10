import { createKeyedExtensionPoint } from '../kernel/extension-point.js';
import type { KubeClient } from './kube-client.js';
import type { OwnerReference } from './meta.js';
import type { ObjectReader } from './reconcilers.js';
import type { Logger } from './runtime.js';

/** The result of checking an installed strategy's health. */
export interface InstallStatus {
  readonly healthy: boolean;
  /** Upstream's strategy error reason when unhealthy (`Waiting`, `ComponentMissing`, `Timeout`, …). */
  readonly reason?: string;
  readonly message?: string;
  /** True when retrying cannot help (upstream's unrecoverable strategy errors). */
  readonly unrecoverable?: boolean;
}

/**
 * What a strategy may rely on of the CSV it installs: its identity, annotations and labels, and its own
 * section, `spec.install` (`strategy` and a `spec` the strategy validates itself: it is user input).
 */
export interface InstallableCsv {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: { readonly install: { readonly strategy: string; readonly spec?: unknown } };
}

/** A pod template (`metadata` and `spec` of a `corev1.PodTemplateSpec`), as plain JSON. */
export type PodTemplate = Readonly<Record<string, unknown>>;

/**
 * The serving certificates OLM made for the CSV's workloads that serve its owned APIServices or webhooks
 * (the CSV-level serving step makes them, their Services and RBAC, and the APIServices and webhook
 * configurations that point at them).
 */
export interface ServingCertificates {
  /**
   * The pod template of workload `name` as OLM runs it: unchanged for a workload that serves nothing;
   * otherwise with its certificate Secret mounted where aggregated API servers and webhook servers look,
   * its service account explicit, and its CA's hash annotated (pods restart when the certificate changes).
   */
  podTemplate(workload: string, template: PodTemplate): PodTemplate;
}

/** What the CSV controller hands a strategy for one install or health check of one CSV. */
export interface InstallContext {
  readonly csv: InstallableCsv;
  /**
   * The client to install with: OLM's own, or OLM's impersonating the OperatorGroup's ServiceAccount
   * for a scoped install (so the API server authorizes each request as that account).
   */
  readonly client: KubeClient;
  /** The informer cache (read-only): Deployments, Subscriptions, OperatorGroups, … */
  readonly cache: ObjectReader;
  /** The namespaces the CSV's OperatorGroup targets; `['']` for all namespaces. */
  readonly targetNamespaces: readonly string[];
  /** An owner reference to the CSV for what the strategy creates in its namespace (neither controller nor blocking). */
  readonly ownerReference: OwnerReference;
  readonly serving: ServingCertificates;
  readonly logger: Logger;
}

/** A workload of the CSV as the serving step needs it: the Service it gets selects its pods, which read their certificate as its service account. */
export interface ServingWorkload {
  readonly name: string;
  readonly podLabels: Readonly<Record<string, string>>;
  readonly serviceAccountName: string;
}

/**
 * How a CSV's `spec.install` is carried out, keyed by `spec.install.strategy` (`deployment`). An install
 * error with `unrecoverable: true` (and a `reason`) is final: the CSV fails without retry.
 */
export interface InstallStrategy {
  readonly strategy: string;
  /**
   * The workloads this CSV runs under the strategy, by the names its owned APIServices' and webhooks'
   * `deploymentName` use; a strategy whose workloads serve nothing may leave it out.
   */
  workloads?(csv: InstallableCsv): readonly ServingWorkload[];
  install(context: InstallContext): Promise<void>;
  checkHealth(context: InstallContext): Promise<InstallStatus>;
}

export const installStrategies = createKeyedExtensionPoint<InstallStrategy>({
  id: 'olm.installStrategies',
  description: 'CSV install strategies by strategy name',
  keyOf: (strategy) => strategy.strategy,
  hint: "boot @olm/controller-csv's deploymentInstallStrategyPlugin for the `deployment` strategy, or a plugin of your own",
});

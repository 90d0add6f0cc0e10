import type { ClusterServiceVersion } from '@olm/api';
import type { CachedObject, InstallStatus, InstallStrategy, KubeClient, ObjectReader } from '@olm/core';
import { OlmError } from '@olm/core';
import { apiStatusCode, apiStatusMessage } from '@olm/controller-runtime';
import { installApiServices } from './api-services.js';
import { installServingCertificates, servingEntries } from './cert-install.js';
import { hasCertResources } from './cert-resources.js';
import { buildDeployment, checkDeployment, type StrategyDeployment, type SubscriptionConfig } from './deployment-strategy.js';
import { fieldManager, Kinds } from './kinds.js';
import { installWebhooks } from './webhooks.js';

/** What the CSV reconciler hands to an install strategy. */
export interface StrategyContext {
  /** The informer cache (Deployments are read from it for health checks). */
  readonly cache?: ObjectReader;
  /** Subscription `spec.config` overrides for this CSV. */
  readonly config?: SubscriptionConfig;
  /**
   * For health checks: the CA PEM each deployment serving owned APIServices or webhooks was installed
   * with, as found on the cluster (its hash is on the pod template). The CSV reconciler supplies it.
   */
  readonly caBundles?: ReadonlyMap<string, string>;
  /**
   * The client to install with: OLM's own impersonating the OperatorGroup's ServiceAccount for a scoped
   * install (upstream's attenuated client). Default: the strategy's own client.
   */
  readonly client?: KubeClient;
}

export interface DeploymentStrategyOptions {
  /** The clock serving certificates are made and checked with. Default: the system clock. */
  readonly now?: () => Date;
}

export { fieldManager } from './kinds.js';

function strategyDeployments(csv: ClusterServiceVersion): StrategyDeployment[] {
  const spec = csv.spec.install.spec;
  if (!spec || !Array.isArray(spec.deployments)) {
    throw new OlmError('OLM_CSV_INVALID_STRATEGY', 'install strategy has no deployments');
  }
  return spec.deployments;
}

function asCsv(csv: unknown): ClusterServiceVersion & { metadata: { name: string; namespace: string } } {
  return csv as ClusterServiceVersion & { metadata: { name: string; namespace: string } };
}

/** The selector of Deployments OLM made for a CSV. */
export function ownedDeploymentSelector(csv: { metadata: { name?: string; namespace?: string } }): string {
  return `olm.owner=${csv.metadata.name},olm.owner.namespace=${csv.metadata.namespace},olm.owner.kind=ClusterServiceVersion`;
}

/**
 * The `deployment` install strategy: the serving certificates, Services and RBAC of deployments that
 * serve owned APIServices or webhooks (`installServingCertificates`), one Deployment per strategy entry
 * (built by `buildDeployment`), the APIServices and webhook configurations, then deletion of CSV-owned
 * Deployments no longer listed; health is `checkDeployment` of every entry against the live (cached)
 * Deployment.
 */
export function createDeploymentInstallStrategy(clientOf: () => KubeClient, options: DeploymentStrategyOptions = {}): InstallStrategy<unknown, StrategyContext> {
  const now = options.now ?? (() => new Date());
  return {
    strategy: 'deployment',
    async install(csvInput, context) {
      const client = context.client ?? clientOf();
      const csv = asCsv(csvInput);
      let entries = strategyDeployments(csv);
      const serving = hasCertResources(csv);
      let caBundles: ReadonlyMap<string, string> = new Map();
      if (serving) {
        if (!context.cache) throw new OlmError('OLM_CSV_NO_CACHE', 'installing APIServices and webhooks needs the informer cache in the strategy context');
        ({ entries, caBundles } = await installServingCertificates(client, csv, entries, now()));
      }
      await insufficientPermissionsAreFinal(() => installDeployments(client, csv, entries, context, caBundles, serving));
      const names = new Set(entries.map((entry) => entry.name));
      const owned = await client.list(Kinds.deployment, { namespace: csv.metadata.namespace, labelSelector: ownedDeploymentSelector(csv) });
      for (const deployment of owned.items) {
        const name = deployment.metadata?.name ?? '';
        if (!names.has(name)) await client.delete({ ...Kinds.deployment, namespace: csv.metadata.namespace, name }).catch(() => undefined);
      }
    },
    async checkHealth(csvInput, context): Promise<InstallStatus> {
      const csv = asCsv(csvInput);
      const entries = context.caBundles ? servingEntries(csv, strategyDeployments(csv), context.caBundles) : strategyDeployments(csv);
      for (const entry of entries) {
        const expected = buildDeployment(csv, entry, context.config);
        const live = context.cache
          ? context.cache.get(Kinds.deployment, entry.name, csv.metadata.namespace)
          : await clientOf().find({ ...Kinds.deployment, namespace: csv.metadata.namespace, name: entry.name });
        const status = checkDeployment(expected, live);
        if (!status.healthy) return status;
      }
      return { healthy: true };
    },
  };
}

/** One Deployment per strategy entry (created, or replaced keeping others' annotations), then the APIServices and webhooks they serve. */
async function installDeployments(
  client: KubeClient,
  csv: ReturnType<typeof asCsv>,
  entries: readonly StrategyDeployment[],
  context: StrategyContext,
  caBundles: ReadonlyMap<string, string>,
  serving: boolean,
): Promise<void> {
  for (const entry of entries) {
    const expected = buildDeployment(csv, entry, context.config);
    const reference = { ...Kinds.deployment, namespace: csv.metadata.namespace, name: entry.name };
    const live = await client.find(reference);
    if (!live) {
      await client.create(expected as CachedObject, { fieldManager });
      continue;
    }
    const metadata = live.metadata ?? {};
    const next = {
      ...expected,
      metadata: {
        ...(expected.metadata as object),
        resourceVersion: metadata.resourceVersion,
        annotations: { ...(metadata.annotations ?? {}), ...((expected.metadata as { annotations?: object }).annotations ?? {}) },
      },
    } as CachedObject;
    await client.replace(next, { fieldManager });
  }
  if (serving) {
    await installApiServices(client, csv, caBundles, context.cache!);
    await installWebhooks(client, csv, caBundles, context.cache!);
  }
}

/**
 * As upstream's deployment installer: a Forbidden answer while installing the deployments (and what they
 * serve) is its unrecoverable `InsufficentPermissions` error, "install strategy failed: <the server's
 * message>". The CSV then waits, failed `InstallComponentFailedNoRetry`, until RBAC changes.
 */
async function insufficientPermissionsAreFinal(install: () => Promise<void>): Promise<void> {
  try {
    await install();
  } catch (error) {
    if (apiStatusCode(error) !== 403) throw error;
    throw Object.assign(new OlmError('OLM_CSV_INSUFFICIENT_PERMISSIONS', `install strategy failed: ${apiStatusMessage(error)}`, { cause: error }), {
      reason: 'InsufficentPermissions',
      unrecoverable: true,
    });
  }
}

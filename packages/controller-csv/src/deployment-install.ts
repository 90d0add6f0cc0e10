import type { ClusterServiceVersion } from '@olm/api';
import type { CachedObject, InstallStatus, InstallStrategy, ObjectReader } from '@olm/core';
import { OlmError } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { buildDeployment, checkDeployment, type StrategyDeployment, type SubscriptionConfig } from './deployment-strategy.js';
import { Kinds } from './kinds.js';

/** What the CSV reconciler hands to an install strategy. */
export interface StrategyContext {
  /** The informer cache (Deployments are read from it for health checks). */
  readonly cache?: ObjectReader;
  /** Subscription `spec.config` overrides for this CSV. */
  readonly config?: SubscriptionConfig;
}

export const fieldManager = 'olm-operator';

function strategyDeployments(csv: ClusterServiceVersion): StrategyDeployment[] {
  const spec = csv.spec.install.spec;
  if (!spec || !Array.isArray(spec.deployments)) {
    throw new OlmError('OLM_CSV_INVALID_STRATEGY', 'install strategy has no deployments');
  }
  return spec.deployments as unknown as StrategyDeployment[];
}

function asCsv(csv: unknown): ClusterServiceVersion & { metadata: { name: string; namespace: string } } {
  return csv as ClusterServiceVersion & { metadata: { name: string; namespace: string } };
}

/** The selector of Deployments OLM made for a CSV. */
export function ownedDeploymentSelector(csv: { metadata: { name?: string; namespace?: string } }): string {
  return `olm.owner=${csv.metadata.name},olm.owner.namespace=${csv.metadata.namespace},olm.owner.kind=ClusterServiceVersion`;
}

/**
 * The `deployment` install strategy: create or update one Deployment per strategy entry (built by
 * `buildDeployment`), delete CSV-owned Deployments no longer listed; health is `checkDeployment`
 * of every entry against the live (cached) Deployment.
 */
export function createDeploymentInstallStrategy(clientOf: () => KubeClient): InstallStrategy<unknown, StrategyContext> {
  return {
    strategy: 'deployment',
    async install(csvInput, context) {
      const client = clientOf();
      const csv = asCsv(csvInput);
      const entries = strategyDeployments(csv);
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
      const names = new Set(entries.map((entry) => entry.name));
      const owned = await client.list(Kinds.deployment, { namespace: csv.metadata.namespace, labelSelector: ownedDeploymentSelector(csv) });
      for (const deployment of owned.items) {
        const name = deployment.metadata?.name ?? '';
        if (!names.has(name)) await client.delete({ ...Kinds.deployment, namespace: csv.metadata.namespace, name }).catch(() => undefined);
      }
    },
    async checkHealth(csvInput, context): Promise<InstallStatus> {
      const csv = asCsv(csvInput);
      for (const entry of strategyDeployments(csv)) {
        const expected = buildDeployment(csv, entry, context.config);
        const live = context.cache
          ? context.cache.get(Kinds.deployment, entry.name, csv.metadata.namespace)
          : await clientOf().find({ ...Kinds.deployment, namespace: csv.metadata.namespace, name: entry.name });
        const status = checkDeployment(expected, live as Record<string, unknown> | undefined);
        if (!status.healthy) return status;
      }
      return { healthy: true };
    },
  };
}

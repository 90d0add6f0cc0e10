import { Kinds as ApiKinds, type SubscriptionConfig } from '@olm/api';
import type { InstallContext, InstallableCsv, InstallStatus, InstallStrategy, ServingCertificates, ServingWorkload } from '@olm/core';
import { OlmError } from '@olm/core';
import { buildDeployment, type BuiltDeployment, checkDeployment, type StrategyDeployment } from './deployment-strategy.js';
import { podSelectorOf, serviceAccountOf } from '../../serving/cert-resources.js';
import { insufficientPermissionsAreFinal } from '../install-errors.js';
import { fieldManager, Kinds } from '../../kinds.js';

type JsonObject = Record<string, unknown>;

export { fieldManager } from '../../kinds.js';

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The strategy's `deployments[]` (`spec.install.spec`, user input: checked here, its schema aside). */
function strategyDeployments(csv: InstallableCsv): StrategyDeployment[] {
  const spec = csv.spec.install.spec;
  const deployments = isObject(spec) ? spec.deployments : undefined;
  if (!Array.isArray(deployments)) throw new OlmError('OLM_CSV_INVALID_STRATEGY', 'install strategy has no deployments');
  return deployments.map((entry: unknown, index) => {
    if (!isObject(entry) || typeof entry.name !== 'string' || !isObject(entry.spec)) {
      throw new OlmError('OLM_CSV_INVALID_STRATEGY', `install strategy deployment ${index} needs a name and a spec`);
    }
    const label = isObject(entry.label) ? (Object.fromEntries(Object.entries(entry.label).filter(([, value]) => typeof value === 'string')) as Record<string, string>) : undefined;
    return { name: entry.name, spec: entry.spec, ...(label ? { label } : {}) };
  });
}

/** The selector of Deployments OLM made for a CSV. */
export function ownedDeploymentSelector(csv: { metadata: { name?: string; namespace?: string } }): string {
  return `olm.owner=${csv.metadata.name},olm.owner.namespace=${csv.metadata.namespace},olm.owner.kind=ClusterServiceVersion`;
}

/** The entry with its pod template as OLM runs it (a serving certificate mounted when it serves an APIService or webhook). */
function servingEntry(entry: StrategyDeployment, serving: ServingCertificates): StrategyDeployment {
  const template = isObject(entry.spec.template) ? entry.spec.template : {};
  const served = serving.podTemplate(entry.name, template);
  return served === template ? entry : { ...entry, spec: { ...entry.spec, template: served } };
}

/** The `spec.config` of the Subscription that installed this CSV, if any (Subscriptions are watched, so cached). */
function subscriptionConfig(context: InstallContext): SubscriptionConfig | undefined {
  const { csv, cache } = context;
  let subscriptions;
  try {
    subscriptions = cache.list(ApiKinds.subscription, { namespace: csv.metadata.namespace });
  } catch {
    return undefined; // no Subscription API: nothing configures the CSV
  }
  const subscription = subscriptions.find(({ status }) => status?.installedCSV === csv.metadata.name || status?.currentCSV === csv.metadata.name);
  return subscription?.spec?.config;
}

/** The Deployments OLM expects for the CSV: one per strategy entry, built by `buildDeployment`. */
function expectedDeployments(context: InstallContext): Array<{ entry: StrategyDeployment; expected: BuiltDeployment }> {
  const config = subscriptionConfig(context);
  return strategyDeployments(context.csv).map((entry) => ({ entry, expected: buildDeployment(context.csv, servingEntry(entry, context.serving), config) }));
}

/**
 * The `deployment` install strategy: one Deployment per strategy entry (built by `buildDeployment`, with
 * the serving certificate the CSV's serving step made for it), then deletion of CSV-owned Deployments no
 * longer listed; health is `checkDeployment` of every entry against the cached Deployment. Certificates,
 * Services, APIServices and webhooks are the CSV controller's serving step, for every strategy.
 */
export function createDeploymentInstallStrategy(): InstallStrategy {
  return {
    strategy: 'deployment',
    workloads(csv): ServingWorkload[] {
      return strategyDeployments(csv).map(({ name, spec }) => ({ name, podLabels: podSelectorOf(spec), serviceAccountName: serviceAccountOf(spec) }));
    },
    async install(context) {
      const { client, csv } = context;
      const deployments = expectedDeployments(context);
      await insufficientPermissionsAreFinal(() => applyDeployments(context, deployments.map(({ expected }) => expected)));
      const names = new Set(deployments.map(({ entry }) => entry.name));
      const owned = await client.list(Kinds.deployment, { namespace: csv.metadata.namespace, labelSelector: ownedDeploymentSelector(csv) });
      for (const deployment of owned.items) {
        const name = deployment.metadata?.name ?? '';
        if (!names.has(name)) await client.delete({ ...Kinds.deployment, namespace: csv.metadata.namespace, name }).catch(() => undefined);
      }
    },
    async checkHealth(context): Promise<InstallStatus> {
      for (const { entry, expected } of expectedDeployments(context)) {
        const status = checkDeployment(expected, context.cache.get(Kinds.deployment, entry.name, context.csv.metadata.namespace));
        if (!status.healthy) return status;
      }
      return { healthy: true };
    },
  };
}

/** One Deployment per strategy entry: created, or replaced keeping others' annotations. */
async function applyDeployments({ client, csv }: InstallContext, deployments: readonly BuiltDeployment[]): Promise<void> {
  for (const expected of deployments) {
    const { metadata } = expected;
    const live = await client.find({ ...Kinds.deployment, namespace: csv.metadata.namespace, name: metadata.name });
    if (!live) {
      await client.create({ ...expected }, { fieldManager });
      continue;
    }
    const next = {
      ...expected,
      metadata: {
        ...metadata,
        resourceVersion: live.metadata.resourceVersion,
        annotations: { ...(live.metadata.annotations ?? {}), ...(metadata.annotations ?? {}) },
      },
    };
    await client.replace(next, { fieldManager });
  }
}

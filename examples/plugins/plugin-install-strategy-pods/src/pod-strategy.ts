import { createHash } from 'node:crypto';
import { type CachedObject, type InstallableCsv, type InstallContext, type InstallStatus, type InstallStrategy, OlmError, type ServingWorkload } from '@olm/core';

type JsonObject = Record<string, unknown>;

export interface PodInstallStrategyOptions {
  /** The most Pods one CSV may run (its strategy's entries); more fail the install without retry. Default 20. */
  readonly maxPods?: number;
}

/** One strategy entry: a Pod of this name runs this pod template. */
interface PodEntry {
  readonly name: string;
  readonly template: JsonObject;
}

/** On each Pod: the hash of what it was made from, so a changed CSV replaces it (a Pod's spec is immutable). */
export const templateHashAnnotation = 'pods.install.olm.operatorframework.io/template-hash';

const podKind = { apiVersion: 'v1', kind: 'Pod' } as const;
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A failure no retry can fix: the CSV fails `InstallComponentFailedNoRetry` with this message. */
function invalid(code: string, message: string): OlmError & { unrecoverable: true } {
  return Object.assign(new OlmError(code, message), { unrecoverable: true as const });
}

/**
 * The entries of `spec.install.spec.deployments` (the field the CSV schema has for a strategy's
 * workloads): each needs a name and a `spec.template`; at most `maxPods` of them.
 */
function podEntries(csv: InstallableCsv, maxPods: number): PodEntry[] {
  const spec = csv.spec.install.spec;
  const deployments = isObject(spec) && Array.isArray(spec.deployments) ? spec.deployments : [];
  const where = `CSV ${csv.metadata.namespace}/${csv.metadata.name}`;
  if (deployments.length > maxPods) {
    throw invalid('OLM_POD_STRATEGY_TOO_MANY_PODS', `install strategy "pods": ${where} lists ${deployments.length} pods, more than maxPods ${maxPods} (createPodInstallStrategyPlugin({ maxPods }))`);
  }
  return deployments.map((entry: unknown, index) => {
    const template = isObject(entry) && isObject(entry.spec) ? entry.spec.template : undefined;
    if (!isObject(entry) || typeof entry.name !== 'string' || entry.name === '' || !isObject(template)) {
      throw invalid('OLM_POD_STRATEGY_INVALID_ENTRY', `install strategy "pods": ${where}, spec.install.spec.deployments[${index}] needs a name and a spec.template`);
    }
    return { name: entry.name, template };
  });
}

const labelsOf = (template: JsonObject): Record<string, string> => {
  const labels = isObject(template.metadata) && isObject(template.metadata.labels) ? template.metadata.labels : {};
  return Object.fromEntries(Object.entries(labels).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
};

/** The Pod for one entry: its template (with what the CSV's serving step mounts), owned by the CSV. */
function desiredPod(context: InstallContext, entry: PodEntry): CachedObject & { metadata: { name: string; annotations: Record<string, string> } } {
  const template = context.serving.podTemplate(entry.name, entry.template);
  const hash = createHash('sha256').update(JSON.stringify(template)).digest('hex');
  const metadata = isObject(template.metadata) ? template.metadata : {};
  const annotations = isObject(metadata.annotations) ? metadata.annotations : {};
  return {
    ...podKind,
    metadata: {
      name: entry.name,
      namespace: context.csv.metadata.namespace,
      labels: labelsOf(template),
      annotations: { ...(annotations as Record<string, string>), [templateHashAnnotation]: hash },
      ownerReferences: [context.ownerReference],
    },
    spec: isObject(template.spec) ? template.spec : {},
  };
}

/**
 * The `pods` install strategy: each entry of the CSV's strategy runs as one bare Pod of its name (no
 * Deployment or ReplicaSet: nothing restarts it elsewhere), replaced when the CSV changes it. Healthy once
 * every Pod runs. The CSV controller's serving step still gives Pods that serve APIServices or webhooks
 * their Service and certificate (`context.serving`).
 */
export function createPodInstallStrategy(options: PodInstallStrategyOptions = {}): InstallStrategy {
  const maxPods = options.maxPods ?? 20;
  return {
    strategy: 'pods',
    workloads(csv): ServingWorkload[] {
      return podEntries(csv, maxPods).map(({ name, template }) => {
        const account = isObject(template.spec) && typeof template.spec.serviceAccountName === 'string' ? template.spec.serviceAccountName : '';
        return { name, podLabels: labelsOf(template), serviceAccountName: account || 'default' };
      });
    },
    async install(context) {
      for (const entry of podEntries(context.csv, maxPods)) {
        const desired = desiredPod(context, entry);
        const reference = { ...podKind, namespace: context.csv.metadata.namespace, name: entry.name };
        const live = await context.client.find(reference);
        if (live?.metadata?.annotations?.[templateHashAnnotation] === desired.metadata.annotations[templateHashAnnotation]) continue;
        if (live) {
          context.logger.info('replacing a pod whose template changed', { pod: entry.name });
          await context.client.delete(reference);
        }
        await context.client.create(desired);
      }
    },
    async checkHealth(context): Promise<InstallStatus> {
      for (const entry of podEntries(context.csv, maxPods)) {
        const live = await context.client.find({ ...podKind, namespace: context.csv.metadata.namespace, name: entry.name });
        if (!live) return { healthy: false, reason: 'ComponentMissing', message: `missing pod with name=${entry.name}` };
        if (live.metadata?.annotations?.[templateHashAnnotation] !== desiredPod(context, entry).metadata.annotations[templateHashAnnotation]) {
          return { healthy: false, reason: 'DeploymentUpdated', message: `pod ${entry.name} runs another template` };
        }
        const phase = isObject(live.status) ? live.status.phase : undefined;
        if (phase !== 'Running') return { healthy: false, reason: 'Waiting', message: `waiting for pod ${entry.name} to run (phase ${String(phase ?? 'Pending')})` };
      }
      return { healthy: true };
    },
  };
}

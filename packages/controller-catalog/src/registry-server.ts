import { createHash } from 'node:crypto';
import { canonicalJson, isAlreadyExists, isNotFound, type KubeClient } from '@olm/controller-runtime';
import { registryServiceName } from './catalog-source-spec.js';
import { asString, Kinds, type AnyObject } from './kinds.js';

/** The label that ties a registry Pod and Service to their CatalogSource (upstream's name). */
export const catalogSourceLabel = 'olm.catalogSource';
const podSpecHashLabel = 'olm.pod-spec-hash';
const serviceSpecHashLabel = 'olm.service-spec-hash';
export const registryPort = 50051;

interface GrpcPodConfig {
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
  affinity?: Record<string, unknown>;
  priorityClassName?: string;
  securityContextConfig?: string;
  memoryTarget?: string;
}

function hashOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

function ownerReference(source: AnyObject) {
  return {
    apiVersion: Kinds.catalogSource.apiVersion,
    kind: Kinds.catalogSource.kind,
    name: source.metadata?.name ?? '',
    uid: source.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: false,
  };
}

/** The Service in front of an image catalog's registry Pod: `<name with . as ->:50051`. */
export function registryService(source: AnyObject): AnyObject {
  const name = source.metadata?.name ?? '';
  const spec = {
    ports: [{ name: 'grpc', port: registryPort, targetPort: registryPort, protocol: 'TCP' }],
    selector: { [catalogSourceLabel]: name },
  };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: registryServiceName(name),
      namespace: source.metadata?.namespace ?? '',
      labels: { [catalogSourceLabel]: name, 'olm.managed': 'true', [serviceSpecHashLabel]: hashOf(spec) },
      ownerReferences: [ownerReference(source)],
    },
    spec,
  };
}

/**
 * The Pod serving an image catalog, as upstream shapes it: one `registry-server` container on port
 * 50051 probed with `grpc_health_probe`, pulled `Always` when the catalog is polled (so a new Pod sees
 * a moved tag), placed and constrained by `spec.grpcPodConfig`.
 */
export function registryPod(source: AnyObject): AnyObject {
  const name = source.metadata?.name ?? '';
  const spec = (source.spec ?? {}) as { image?: string; updateStrategy?: unknown; grpcPodConfig?: GrpcPodConfig };
  const config = spec.grpcPodConfig ?? {};
  const probe = (initialDelaySeconds: number) => ({
    exec: { command: ['grpc_health_probe', `-addr=:${registryPort}`] },
    initialDelaySeconds,
    timeoutSeconds: 5,
  });
  const restricted = config.securityContextConfig !== 'legacy';
  const memoryTarget = config.memoryTarget;
  const container: Record<string, unknown> = {
    name: 'registry-server',
    image: asString(spec.image),
    imagePullPolicy: spec.updateStrategy ? 'Always' : 'IfNotPresent',
    ports: [{ name: 'grpc', containerPort: registryPort }],
    readinessProbe: probe(0),
    livenessProbe: probe(10),
    startupProbe: { ...probe(0), failureThreshold: 10, periodSeconds: 10 },
    resources: {
      requests: { cpu: '10m', memory: memoryTarget ?? '50Mi' },
      ...(memoryTarget ? { limits: { memory: doubled(memoryTarget) } } : {}),
    },
    ...(memoryTarget ? { env: [{ name: 'GOMEMLIMIT', value: goMemoryLimit(memoryTarget) }] } : {}),
    terminationMessagePolicy: 'FallbackToLogsOnError',
    ...(restricted
      ? { securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: false, capabilities: { drop: ['ALL'] } } }
      : {}),
  };
  const podSpec = {
    containers: [container],
    nodeSelector: { 'kubernetes.io/os': 'linux', ...(config.nodeSelector ?? {}) },
    ...(config.tolerations ? { tolerations: config.tolerations } : {}),
    ...(config.affinity ? { affinity: config.affinity } : {}),
    ...(config.priorityClassName ? { priorityClassName: config.priorityClassName } : {}),
    ...(restricted ? { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } } : {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${registryServiceName(name)}-`,
      namespace: source.metadata?.namespace ?? '',
      labels: { [catalogSourceLabel]: name, 'olm.managed': 'true', [podSpecHashLabel]: hashOf(podSpec) },
      annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true' },
      ownerReferences: [ownerReference(source)],
    },
    spec: podSpec,
  };
}

/** `50Mi` → `100Mi`: upstream's limit is twice the memory target. */
function doubled(quantity: string): string {
  const match = /^(\d+(?:\.\d+)?)(.*)$/.exec(quantity);
  return match ? `${Number(match[1]) * 2}${match[2]}` : quantity;
}

/** `50Mi` → `50MiB`: Go's GOMEMLIMIT spells binary units with a trailing B. */
function goMemoryLimit(quantity: string): string {
  return /[KMGT]i$/.test(quantity) ? `${quantity}B` : quantity;
}

/**
 * Makes the registry Service and exactly one registry Pod of the current spec exist for an image
 * catalog. With `replacePod` (a registry poll is due) the Pod is recreated, pulling the tag again.
 * Returns what changed, for logging.
 */
export async function ensureRegistryServer(client: KubeClient, source: AnyObject, options: { replacePod: boolean }): Promise<string[]> {
  const namespace = source.metadata?.namespace ?? '';
  const name = source.metadata?.name ?? '';
  const changes: string[] = [];

  const service = registryService(source);
  const current = await client.find<AnyObject>({ apiVersion: 'v1', kind: 'Service', namespace, name: service.metadata!.name! });
  if (!current) {
    await createIgnoringConflict(client, service);
    changes.push(`created Service ${namespace}/${service.metadata!.name}`);
  } else if (current.metadata?.labels?.[serviceSpecHashLabel] !== service.metadata!.labels![serviceSpecHashLabel]) {
    // Recreated rather than updated: a Service's clusterIP and other defaulted fields cannot be replaced blindly.
    await deleteIgnoringMissing(client, { apiVersion: 'v1', kind: 'Service', namespace, name: service.metadata!.name! });
    await createIgnoringConflict(client, service);
    changes.push(`replaced Service ${namespace}/${service.metadata!.name}`);
  }

  const pod = registryPod(source);
  const wanted = pod.metadata!.labels![podSpecHashLabel];
  const pods = (await client.list<AnyObject>({ apiVersion: 'v1', kind: 'Pod' }, { namespace, labelSelector: `${catalogSourceLabel}=${name}` })).items;
  const keep = options.replacePod ? undefined : pods.find((candidate) => candidate.metadata?.labels?.[podSpecHashLabel] === wanted && !candidate.metadata?.deletionTimestamp);
  for (const stale of pods) {
    if (stale === keep) continue;
    await deleteIgnoringMissing(client, { apiVersion: 'v1', kind: 'Pod', namespace, name: stale.metadata?.name ?? '' });
    changes.push(`deleted Pod ${namespace}/${stale.metadata?.name}`);
  }
  if (!keep) {
    const created = await client.create(pod);
    changes.push(`created Pod ${namespace}/${created.metadata?.name}`);
  }
  return changes;
}

/** Removes an image catalog's registry Pods and Service (when its spec stops naming an image). */
export async function removeRegistryServer(client: KubeClient, source: { namespace: string; name: string }): Promise<void> {
  const pods = (await client.list<AnyObject>({ apiVersion: 'v1', kind: 'Pod' }, { namespace: source.namespace, labelSelector: `${catalogSourceLabel}=${source.name}` })).items;
  for (const pod of pods) await deleteIgnoringMissing(client, { apiVersion: 'v1', kind: 'Pod', namespace: source.namespace, name: pod.metadata?.name ?? '' });
  const service = await client.find<AnyObject>({ apiVersion: 'v1', kind: 'Service', namespace: source.namespace, name: registryServiceName(source.name) });
  if (service?.metadata?.labels?.[catalogSourceLabel] === source.name) {
    await deleteIgnoringMissing(client, { apiVersion: 'v1', kind: 'Service', namespace: source.namespace, name: registryServiceName(source.name) });
  }
}

async function createIgnoringConflict(client: KubeClient, object: AnyObject): Promise<void> {
  try {
    await client.create(object);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

async function deleteIgnoringMissing(client: KubeClient, reference: { apiVersion: string; kind: string; namespace: string; name: string }): Promise<void> {
  try {
    await client.delete(reference);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

import { createHash } from 'node:crypto';
import { ownerReferenceTo, SecurityContextConfigs, type CatalogSourceSpec, type ExtractContentConfig, type SecurityConfig } from '@olm/api';
import { canonicalJson } from '@olm/controller-runtime';
import { asString, Kinds, type AnyObject, type CatalogSourceObject } from './catalog-source-object.js';

/** The label that ties a registry Pod and Service to their CatalogSource (upstream's name). */
export const catalogSourceLabel = 'olm.catalogSource';
export const podSpecHashLabel = 'olm.pod-spec-hash';
export const serviceSpecHashLabel = 'olm.service-spec-hash';
/** A CatalogSource annotation that sets its registry Pod's priority class (upstream's). */
export const catalogPriorityClassAnnotation = 'operatorframework.io/priorityclass';
export const registryPort = 50051;

/** Upstream's `--opmImage` and `--util-image` defaults, used by `extractContent` Pods. */
export const defaultOpmImage = 'quay.io/operator-framework/opm:latest';
export const defaultUtilImage = 'quay.io/operator-framework/olm:latest';
/** Upstream's `--set-workload-user-id` user. */
export const defaultWorkloadUserId = 1001;

export interface RegistryPodSettings {
  /** Serves the extracted catalog (`grpcPodConfig.extractContent`). */
  readonly opmImage: string;
  /** Holds `copy-content`, which copies the catalog out of its image. */
  readonly utilImage: string;
  /** `runAsUser` of restricted Pods; 0 leaves it to the image. */
  readonly workloadUserId: number;
  /** `restricted` when the namespace enforces the restricted pod security level, else `legacy`. */
  readonly defaultSecurityContextConfig: SecurityConfig;
}

type Container = Record<string, unknown> & { securityContext?: Record<string, unknown>; volumeMounts?: unknown[] };

/** Upstream's registry Service name for a catalog: the CatalogSource name with dots replaced. */
export function registryServiceName(catalogSourceName: string): string {
  return catalogSourceName.replaceAll('.', '-');
}

export function hashOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

function ownerReference(source: CatalogSourceObject, blockOwnerDeletion: boolean) {
  return ownerReferenceTo(Kinds.catalogSource, source, { controller: true, blockOwnerDeletion });
}

/** Pulled `Always` unless pinned by digest, as kubelets and upstream infer it. */
export const inferImagePullPolicy = (image: string) => (image.includes('@') ? 'IfNotPresent' : 'Always');

/** The ServiceAccount of an image catalog's Pod (named like the catalog), carrying its `spec.secrets` as image pull secrets. */
export function registryServiceAccount(source: CatalogSourceObject): AnyObject & { imagePullSecrets: Array<{ name: string }> } {
  const secrets: readonly unknown[] = source.spec?.secrets ?? [];
  return {
    ...Kinds.serviceAccount,
    metadata: {
      name: source.metadata?.name ?? '',
      namespace: source.metadata?.namespace ?? '',
      labels: { 'olm.managed': 'true' },
      ownerReferences: [ownerReference(source, true)],
    },
    imagePullSecrets: secrets.filter((name): name is string => typeof name === 'string' && name !== '').map((name) => ({ name })),
  };
}

/** The Service in front of an image catalog's registry Pod: `<name with . as ->:50051`. */
export function registryService(source: CatalogSourceObject): AnyObject {
  const name = source.metadata?.name ?? '';
  const spec = {
    ports: [{ name: 'grpc', port: registryPort, targetPort: registryPort, protocol: 'TCP' }],
    selector: { [catalogSourceLabel]: name },
  };
  return {
    ...Kinds.service,
    metadata: {
      name: registryServiceName(name),
      namespace: source.metadata?.namespace ?? '',
      labels: { [catalogSourceLabel]: name, 'olm.managed': 'true', [serviceSpecHashLabel]: hashOf(spec) },
      ownerReferences: [ownerReference(source, false)],
    },
    spec,
  };
}

/**
 * The Pod serving an image catalog, as upstream's pod builder shapes it: one `registry-server`
 * container on 50051 probed with `grpc_health_probe`, run as the catalog's ServiceAccount with its
 * pull secrets, then `spec.grpcPodConfig` applied (node selector, priority class, tolerations and
 * affinity replace the defaults; a memory target is the memory request and `GOMEMLIMIT`;
 * `extractContent` copies the catalog out of its image in init containers and serves it with opm),
 * then the security context (`restricted`: RuntimeDefault seccomp, no privilege escalation, all
 * capabilities dropped, the workload user) and the `operatorframework.io/priorityclass` annotation.
 */
export function registryPod(source: CatalogSourceObject, serviceAccount: { name: string; imagePullSecrets: unknown[] }, settings: RegistryPodSettings): AnyObject {
  const name = source.metadata?.name ?? '';
  const spec: Partial<CatalogSourceSpec> = source.spec ?? {};
  const image = asString(spec.image);
  const annotations = { ...(source.metadata?.annotations ?? {}) };
  const probe = { exec: { command: ['grpc_health_probe', `-addr=:${registryPort}`] } };
  const container: Container = {
    name: 'registry-server',
    image,
    ports: [{ name: 'grpc', containerPort: registryPort }],
    readinessProbe: { ...probe, initialDelaySeconds: 5, timeoutSeconds: 5 },
    livenessProbe: { ...probe, initialDelaySeconds: 10, timeoutSeconds: 5 },
    startupProbe: { ...probe, failureThreshold: 10, periodSeconds: 10, timeoutSeconds: 5 },
    resources: { requests: { cpu: '10m', memory: '50Mi' } },
    securityContext: { readOnlyRootFilesystem: false },
    imagePullPolicy: inferImagePullPolicy(image),
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
  const podSpec: Record<string, unknown> & { containers: Container[]; initContainers?: Container[]; volumes?: unknown[] } = {
    containers: [container],
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    serviceAccountName: serviceAccount.name,
    ...(serviceAccount.imagePullSecrets.length > 0 ? { imagePullSecrets: serviceAccount.imagePullSecrets } : {}),
  };
  const config = spec.grpcPodConfig;
  if (config) {
    if (config.nodeSelector) podSpec.nodeSelector = { ...config.nodeSelector };
    if (config.priorityClassName !== undefined) podSpec.priorityClassName = config.priorityClassName;
    if (config.tolerations) podSpec.tolerations = structuredClone(config.tolerations);
    if (config.affinity) podSpec.affinity = structuredClone(config.affinity);
    if (config.memoryTarget !== undefined) {
      const target = String(config.memoryTarget);
      container.resources = { requests: { cpu: '10m', memory: target } };
      container.env = [{ name: 'GOMEMLIMIT', value: `${binaryQuantity(target)}B` }];
    }
    if (config.extractContent) extractContent(podSpec, container, config.extractContent, image, settings);
  }
  const securityContextConfig = config?.securityContextConfig || settings.defaultSecurityContextConfig;
  if (securityContextConfig === SecurityContextConfigs.Restricted) {
    podSpec.securityContext = {
      seccompProfile: { type: 'RuntimeDefault' },
      ...(settings.workloadUserId > 0 ? { runAsUser: settings.workloadUserId, runAsNonRoot: true } : {}),
    };
    for (const each of [...(podSpec.initContainers ?? []), ...podSpec.containers]) {
      each.securityContext = { ...(each.securityContext ?? {}), allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
    }
  }
  const priorityClass = annotations[catalogPriorityClassAnnotation];
  if (priorityClass) podSpec.priorityClassName = priorityClass;
  return {
    ...Kinds.pod,
    metadata: {
      generateName: `${name}-`,
      namespace: source.metadata?.namespace ?? '',
      labels: { [catalogSourceLabel]: name, 'olm.managed': 'true', [podSpecHashLabel]: hashOf(podSpec) },
      // lets the cluster autoscaler drain a node: catalog Pods have no controller to recreate them elsewhere
      annotations: { ...annotations, 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true' },
      ownerReferences: [ownerReference(source, false)],
    },
    spec: podSpec,
  };
}

/**
 * `grpcPodConfig.extractContent`: an init container copies `copy-content` from the util image, a
 * second runs it in the catalog image to copy the catalog (and its cache) to a shared volume, and
 * the server becomes `opm serve` of that copy, with a read-only root file system.
 */
function extractContent(podSpec: { initContainers?: Container[]; volumes?: unknown[] }, container: Container, extract: ExtractContentConfig, image: string, settings: RegistryPodSettings) {
  const utilities = { name: 'utilities', mountPath: '/utilities' };
  const content = { name: 'catalog-content', mountPath: '/extracted-catalog' };
  podSpec.volumes = [...(podSpec.volumes ?? []), { name: 'utilities', emptyDir: {} }, { name: 'catalog-content', emptyDir: {} }];
  const cacheDir = extract.cacheDir ?? '';
  podSpec.initContainers = [
    ...(podSpec.initContainers ?? []),
    {
      name: 'extract-utilities',
      image: settings.utilImage,
      command: ['cp'],
      args: ['/bin/copy-content', '/utilities/copy-content'],
      volumeMounts: [utilities],
      terminationMessagePolicy: 'FallbackToLogsOnError',
      securityContext: { readOnlyRootFilesystem: true },
    },
    {
      name: 'extract-content',
      image,
      imagePullPolicy: inferImagePullPolicy(image),
      command: ['/utilities/copy-content'],
      args: [
        `--catalog.from=${extract.catalogDir ?? ''}`,
        '--catalog.to=/extracted-catalog/catalog',
        ...(cacheDir ? [`--cache.from=${cacheDir}`, '--cache.to=/extracted-catalog/cache'] : []),
      ],
      volumeMounts: [utilities, content],
      terminationMessagePolicy: 'FallbackToLogsOnError',
      securityContext: { readOnlyRootFilesystem: true },
    },
  ];
  container.securityContext = { ...(container.securityContext ?? {}), readOnlyRootFilesystem: true };
  container.image = settings.opmImage;
  container.command = ['/bin/opm'];
  container.imagePullPolicy = inferImagePullPolicy(settings.opmImage);
  if (cacheDir) {
    container.args = ['serve', '/extracted-catalog/catalog', '--cache-dir=/extracted-catalog/cache'];
  } else {
    // opm serve then builds its cache in /tmp, which a read-only root cannot hold
    podSpec.volumes.push({ name: 'tmpdir', emptyDir: {} });
    container.volumeMounts = [...(container.volumeMounts ?? []), { name: 'tmpdir', mountPath: '/tmp/' }];
    container.args = ['serve', '/extracted-catalog/catalog'];
  }
  container.volumeMounts = [...(container.volumeMounts ?? []), content];
}

const binarySuffixes = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const quantitySuffixes: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

/**
 * A memory quantity as Kubernetes prints it in binary SI: the largest power-of-1024 suffix that keeps
 * the number whole (`512Mi`, `1536Mi`, `2Gi`), else plain bytes (`100M` → `100000000`). Upstream sets
 * `GOMEMLIMIT` to this plus `B`, which Go reads (`MiB`). Unparsable text is kept as it is.
 */
export function binaryQuantity(text: string): string {
  const match = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match) return text;
  const bytes = Math.ceil(Number(match[1]) * (match[3] !== undefined ? 10 ** Number(match[3]) : quantitySuffixes[match[2] ?? '']!));
  for (let power = binarySuffixes.length; power >= 1; power--) {
    const unit = 1024 ** power;
    if (bytes !== 0 && bytes % unit === 0) return `${bytes / unit}${binarySuffixes[power - 1]}`;
  }
  return String(bytes);
}

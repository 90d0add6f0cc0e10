import type { Icon } from './cluster-service-version.js';
import type { Condition, KubernetesObject, Opaque, Quantity, Time, Toleration } from './meta.js';

export const CatalogSourceKind = 'CatalogSource';

/** `spec.sourceType`. `internal` is a deprecated alias of `configmap`. */
export const SourceTypes = {
  Internal: 'internal',
  Configmap: 'configmap',
  Grpc: 'grpc',
} as const;
export type SourceType = (typeof SourceTypes)[keyof typeof SourceTypes];

/** `status.reason` values. */
export const CatalogSourceReasons = {
  SpecInvalidError: 'SpecInvalidError',
  ConfigMapError: 'ConfigMapError',
  RegistryServerError: 'RegistryServerError',
  IntervalInvalidError: 'InvalidIntervalError',
} as const;
export type CatalogSourceReason = (typeof CatalogSourceReasons)[keyof typeof CatalogSourceReasons];

/** gRPC connectivity states reported in `status.connectionState.lastObservedState`. */
export const GrpcConnectionStates = {
  Idle: 'IDLE',
  Connecting: 'CONNECTING',
  Ready: 'READY',
  TransientFailure: 'TRANSIENT_FAILURE',
  Shutdown: 'SHUTDOWN',
} as const;

/**
 * `spec.grpcPodConfig.securityContextConfig`. When unset, OLM uses `restricted` if the namespace enforces the
 * restricted pod security level, else `legacy`.
 */
export const SecurityContextConfigs = {
  Legacy: 'legacy',
  Restricted: 'restricted',
} as const;
export type SecurityConfig = (typeof SecurityContextConfigs)[keyof typeof SecurityContextConfigs];

/** Registry polling used when `spec.updateStrategy.registryPoll.interval` cannot be parsed. */
export const DefaultRegistryPollInterval = '15m0s';
/** Port and protocol of the registry service OLM creates for image-backed catalogs. */
export const RegistryServicePort = '50051';
export const RegistryServiceProtocol = 'grpc';

export interface ExtractContentConfig {
  cacheDir?: string;
  catalogDir: string;
}

export interface GrpcPodConfig {
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  /** `corev1.Affinity`. */
  affinity?: Opaque;
  priorityClassName?: string;
  securityContextConfig?: SecurityConfig;
  memoryTarget?: Quantity;
  extractContent?: ExtractContentConfig;
}

export interface RegistryPoll {
  /** A Go duration (`45m`, `1h30m`). */
  interval?: string;
}

export interface UpdateStrategy {
  registryPoll?: RegistryPoll;
}

export interface CatalogSourceSpec {
  sourceType: SourceType | (string & {});
  priority?: number;
  configMap?: string;
  address?: string;
  image?: string;
  grpcPodConfig?: GrpcPodConfig;
  updateStrategy?: UpdateStrategy;
  secrets?: string[];
  displayName?: string;
  description?: string;
  publisher?: string;
  icon?: Icon;
}

export interface ConfigMapResourceReference {
  name: string;
  namespace: string;
  uid?: string;
  resourceVersion?: string;
  lastUpdateTime?: Time;
}

export interface RegistryServiceStatus {
  protocol?: string;
  serviceName?: string;
  serviceNamespace?: string;
  port?: string;
  createdAt?: Time;
}

export interface GRPCConnectionState {
  address?: string;
  lastObservedState: string;
  lastConnect?: Time;
}

export interface CatalogSourceStatus {
  message?: string;
  reason?: CatalogSourceReason | (string & {});
  latestImageRegistryPoll?: Time;
  configMapReference?: ConfigMapResourceReference;
  registryService?: RegistryServiceStatus;
  connectionState?: GRPCConnectionState;
  conditions?: Condition[];
}

/** operators.coreos.com/v1alpha1 CatalogSource (`catsrc`). */
export interface CatalogSource extends KubernetesObject<'operators.coreos.com/v1alpha1', 'CatalogSource'> {
  spec: CatalogSourceSpec;
  status?: CatalogSourceStatus;
}

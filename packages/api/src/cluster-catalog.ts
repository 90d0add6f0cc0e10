import type { Condition, ObjectMeta, Time } from './meta.js';

/** The API group of OLM v1 (operator-controller and catalogd). */
export const GROUP_V1 = 'olm.operatorframework.io';
export const ApiVersionsV1 = { v1: 'olm.operatorframework.io/v1' } as const;

export const ClusterCatalogKind = 'ClusterCatalog';

/** `spec.source.type`: only `Image` upstream. */
export const ClusterCatalogSourceTypes = { image: 'Image' } as const;

/** `spec.availabilityMode`. */
export const AvailabilityModes = { available: 'Available', unavailable: 'Unavailable' } as const;
export type AvailabilityMode = (typeof AvailabilityModes)[keyof typeof AvailabilityModes];

/** The condition types of a ClusterCatalog's status. */
export const ClusterCatalogConditionTypes = { progressing: 'Progressing', serving: 'Serving' } as const;

/** Reasons, verbatim from upstream: Progressing True/Succeeded, True/Retrying, False/Blocked; Serving True/Available, False/Unavailable, False/UserSpecifiedUnavailable. */
export const ClusterCatalogReasons = {
  succeeded: 'Succeeded',
  retrying: 'Retrying',
  blocked: 'Blocked',
  available: 'Available',
  unavailable: 'Unavailable',
  userSpecifiedUnavailable: 'UserSpecifiedUnavailable',
} as const;

/** The condition messages catalogd writes. */
export const ClusterCatalogMessages = {
  succeeded: 'Successfully unpacked and stored content from resolved source',
  serving: 'Serving desired content from resolved source',
  userSpecifiedUnavailable: 'Catalog availability mode is set to Unavailable',
} as const;

/** The label catalogd's webhook sets on every ClusterCatalog: its own name, so clients can select catalogs by name. */
export const MetadataNameLabel = 'olm.operatorframework.io/metadata.name';

/** catalogd's finalizer: the served content is removed before the ClusterCatalog goes. */
export const DeleteServerCacheFinalizer = 'olm.operatorframework.io/delete-server-cache';

/** The image label naming the directory that holds the file-based catalog (default `/configs`). */
export const CatalogConfigsLabel = 'operators.operatorframework.io.index.configs.v1';
export const DefaultCatalogConfigsDirectory = '/configs';

/**
 * This project's addition for air-gapped and local use: a ClusterCatalog annotated with the name of a
 * directory the controller was configured with (`olm run --catalog-directory NAME=DIR`, `olm up`'s
 * `acme-examples`) is served from that directory instead of pulling `spec.source.image.ref`.
 */
export const SourceDirectoryAnnotation = 'olm.operatorframework.io/source-directory';

export interface ClusterCatalogImageSource {
  ref: string;
  pollIntervalMinutes?: number;
}

export interface ClusterCatalogSpec {
  source: { type: string; image?: ClusterCatalogImageSource };
  priority?: number;
  availabilityMode?: AvailabilityMode;
}

export interface ClusterCatalogStatus {
  conditions?: Condition[];
  resolvedSource?: { type: string; image: { ref: string } };
  urls?: { base: string };
  lastUnpacked?: Time;
}

/** olm.operatorframework.io/v1 ClusterCatalog (cluster-scoped): file-based catalog content served over HTTPS. */
export interface ClusterCatalog {
  apiVersion: typeof ApiVersionsV1.v1;
  kind: typeof ClusterCatalogKind;
  metadata: ObjectMeta;
  spec: ClusterCatalogSpec;
  status?: ClusterCatalogStatus;
}

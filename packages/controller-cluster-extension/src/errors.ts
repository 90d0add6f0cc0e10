/** Stable error codes of the ClusterExtension controller (`OLM_<AREA>_<WHAT>`, as `@olm/core`). */
export const ClusterExtensionErrorCodes = {
  catalogUnavailable: 'OLM_CLUSTER_EXTENSION_CATALOG_UNAVAILABLE',
  catalogTooLarge: 'OLM_CLUSTER_EXTENSION_CATALOG_TOO_LARGE',
  resolution: 'OLM_CLUSTER_EXTENSION_RESOLUTION',
  invalidSpec: 'OLM_CLUSTER_EXTENSION_INVALID_SPEC',
} as const;

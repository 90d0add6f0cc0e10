/** Error codes of image pulls; the puller turns them into `BundleUnpackFailed` conditions. */
export const BundleImageErrorCodes = {
  invalidReference: 'OLM_BUNDLE_IMAGE_INVALID_REFERENCE',
  notFound: 'OLM_BUNDLE_IMAGE_NOT_FOUND',
  unauthorized: 'OLM_BUNDLE_IMAGE_UNAUTHORIZED',
  unreachable: 'OLM_BUNDLE_IMAGE_REGISTRY_UNREACHABLE',
  registryError: 'OLM_BUNDLE_IMAGE_REGISTRY_ERROR',
  digestMismatch: 'OLM_BUNDLE_IMAGE_DIGEST_MISMATCH',
  unsupported: 'OLM_BUNDLE_IMAGE_UNSUPPORTED',
  tooLarge: 'OLM_BUNDLE_IMAGE_TOO_LARGE',
  /** Past one of the image's `BundleImageLimits` (layers, bytes, files): terminal for that image. */
  limitExceeded: 'OLM_BUNDLE_IMAGE_LIMIT_EXCEEDED',
} as const;

/** Error codes of unpacking a pulled image: its layers, its manifests, the ConfigMap they go into. */
export const BundleUnpackErrorCodes = {
  badLayer: 'OLM_BUNDLE_UNPACK_BAD_LAYER',
  badManifest: 'OLM_BUNDLE_UNPACK_BAD_MANIFEST',
  noCsv: 'OLM_BUNDLE_UNPACK_NO_CSV',
  tooLarge: 'OLM_BUNDLE_UNPACK_TOO_LARGE',
  badConfigMap: 'OLM_BUNDLE_UNPACK_BAD_CONFIGMAP',
} as const;

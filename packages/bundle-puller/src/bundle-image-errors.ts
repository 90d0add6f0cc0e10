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
} as const;

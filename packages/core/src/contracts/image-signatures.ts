import { createSingleExtensionPoint } from '../kernel/extension-point.js';

/**
 * The annotation of a CatalogSource or ClusterCatalog naming its signature policy: a ConfigMap (in the
 * verifier's policy namespace, OLM's own by default) whose keys or trusted root every image of the catalog
 * must be signed with. Without it, images are not verified.
 */
export const signaturePolicyAnnotation = 'olm.operatorframework.io/signature-policy';

export interface ImageVerificationRequest {
  /** The image as the catalog references it (a tag or a digest). */
  readonly image: string;
  /** The manifest digest to verify: what was pulled. Absent: the verifier resolves the reference itself and answers the digest it verified. */
  readonly digest?: string;
  /** The policy's name, as the catalog's `olm.operatorframework.io/signature-policy` annotation gives it. */
  readonly policy: string;
  /** The registry credentials the image is pulled with (`@olm/bundle-puller`'s `RegistryCredential`); its signatures are read with them. */
  readonly credentials?: readonly object[];
  readonly signal?: AbortSignal;
}

export interface ImageVerificationResult {
  /** The digest whose signature was verified. */
  readonly digest: string;
  /** Who signed it, for logs and events: a key's name, or a certificate's identity and issuer. */
  readonly signer: string;
}

/**
 * Verifies that an image digest is signed as a named policy requires. Rejects with a coded error
 * (`OLM_IMAGE_SIGNATURE_*`) whose message names the image, the policy and why; an image refused for its
 * signatures has codes `OLM_IMAGE_SIGNATURE_UNSIGNED`, `…_INVALID` or `…_LIMIT_EXCEEDED`, a policy that
 * cannot be used `OLM_IMAGE_SIGNATURE_POLICY`.
 */
export interface ImageSignatureVerifier {
  verify(request: ImageVerificationRequest): Promise<ImageVerificationResult>;
}

export const imageSignatureVerifier = createSingleExtensionPoint<ImageSignatureVerifier>({
  id: 'olm.imageSignatureVerifier',
  description: 'the verifier of catalog and bundle image signatures (catalogs annotated olm.operatorframework.io/signature-policy)',
  hint: "boot an image signature verifier plugin such as @olm/image-signatures' imageSignaturesPlugin",
});

/** Whether an error is an image refused for its signatures (not a policy or registry problem). */
export function isImageSignatureRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'OLM_IMAGE_SIGNATURE_UNSIGNED' || code === 'OLM_IMAGE_SIGNATURE_INVALID' || code === 'OLM_IMAGE_SIGNATURE_LIMIT_EXCEEDED';
}

import { OlmError, signaturePolicyAnnotation, type CachedObject, type CatalogRef, type ImageSignatureVerifier } from '@olm/core';
import type { RegistryCredential } from './registry-credentials.js';

/** On an unpacked bundle's ConfigMap: who signed the image, verified under the policy of its `olm.operatorframework.io/signature-policy` annotation. */
export const signedByAnnotation = 'olm.operatorframework.io/signed-by';

/**
 * Whether a stored unpack may serve a request: one that names a signature policy only takes a ConfigMap
 * verified under that policy (an image unpacked before the catalog had a policy is pulled and verified again).
 */
export function isVerifiedFor(stored: CachedObject, policy: string | undefined): boolean {
  const annotations = stored.metadata?.annotations as Readonly<Record<string, string>> | undefined;
  return policy === undefined || annotations?.[signaturePolicyAnnotation] === policy;
}

/**
 * Verifies the digest pulled against the catalog's policy before anything of the image is read, and answers
 * the annotations to record on the unpacked ConfigMap. Without a verifier booted, a catalog with a policy
 * fails rather than going unchecked.
 */
export async function checkSignature(
  verifier: ImageSignatureVerifier | undefined,
  request: { readonly image: string; readonly digest: string; readonly policy: string; readonly catalog: CatalogRef; readonly credentials: readonly RegistryCredential[]; readonly signal: AbortSignal },
): Promise<Record<string, string>> {
  if (!verifier) {
    throw new OlmError(
      'OLM_IMAGE_SIGNATURE_NO_VERIFIER',
      `catalogsource ${request.catalog.namespace}/${request.catalog.name} requires signed images (annotation ${signaturePolicyAnnotation}: ${request.policy}) and no image signature verifier is booted; boot @olm/image-signatures' imageSignaturesPlugin (olm run/up do), or remove the annotation`,
    );
  }
  const { signer } = await verifier.verify({ image: request.image, digest: request.digest, policy: request.policy, credentials: request.credentials, signal: request.signal });
  return { [signaturePolicyAnnotation]: request.policy, [signedByAnnotation]: signer };
}

/** Annotations without the signature ones: an image's own `metadata/annotations.yaml` must not claim it was verified. */
export function withoutSignatureAnnotations(annotations: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const kept: Record<string, string> = { ...annotations };
  delete kept[signaturePolicyAnnotation];
  delete kept[signedByAnnotation];
  return kept;
}

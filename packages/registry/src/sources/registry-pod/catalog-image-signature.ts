import { CatalogSourceReasons } from '@olm/api';
import { describeError, signaturePolicyAnnotation, type CatalogSourceProblem, type ImageSignatureVerifier } from '@olm/core';
import { asString, type CatalogSourceObject } from './catalog-source-object.js';

/** `registry/repo:tag` or `…@sha256:…` → `registry/repo`. */
function repositoryOf(image: string): string {
  const withoutDigest = image.replace(/@.*$/, '');
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}

/**
 * An image catalog with an `olm.operatorframework.io/signature-policy`: its catalog image is verified before
 * a registry Pod runs it, and the Pod runs the digest verified (a tag could move between the check and the
 * kubelet's pull). A verification is kept per catalog until its image or policy changes or a registry poll is due.
 */
export function createCatalogImageVerification() {
  const verified = new Map<string, { readonly image: string; readonly policy: string; readonly pinned: string }>();
  return {
    /** The source to build the registry Pod from (its image pinned when verified), or why it is refused (status reason and message). */
    async sourceFor(
      source: CatalogSourceObject,
      pollDue: boolean,
      verifier: ImageSignatureVerifier | undefined,
    ): Promise<{ readonly source: CatalogSourceObject } | { readonly refused: CatalogSourceProblem }> {
      const key = `${source.metadata?.namespace ?? ''}/${source.metadata?.name ?? ''}`;
      const policy = source.metadata?.annotations?.[signaturePolicyAnnotation];
      const image = asString(source.spec?.image);
      if (!policy) {
        verified.delete(key);
        return { source };
      }
      let known = verified.get(key);
      if (!known || known.image !== image || known.policy !== policy || pollDue) {
        verified.delete(key);
        try {
          if (!verifier) throw new Error(`no image signature verifier is booted; boot @olm/image-signatures' imageSignaturesPlugin (olm run/up do), or remove the annotation`);
          const { digest } = await verifier.verify({ image, policy });
          known = { image, policy, pinned: `${repositoryOf(image)}@${digest}` };
          verified.set(key, known);
        } catch (error) {
          const message = `catalog image ${image} refused by signature policy ${policy} (annotation ${signaturePolicyAnnotation}): ${describeError(error)}; no registry Pod serves it`;
          return { refused: { reason: CatalogSourceReasons.RegistryServerError, message } };
        }
      }
      return { source: { ...source, spec: { ...source.spec, image: known.pinned } } };
    },
    forget(key: { readonly namespace: string; readonly name: string }): void {
      verified.delete(`${key.namespace}/${key.name}`);
    },
  };
}

export type CatalogImageVerification = ReturnType<typeof createCatalogImageVerification>;

import { CatalogSourceReasons } from '@olm/api';
import { describeError, signaturePolicyAnnotation, type ImageSignatureVerifier } from '@olm/core';
import type { CatalogSourcePass } from './catalog-source-steps.js';
import { asString, type CatalogSourceObject } from './kinds.js';

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
export function createCatalogImageVerification(verifier: () => ImageSignatureVerifier | undefined) {
  const verified = new Map<string, { readonly image: string; readonly policy: string; readonly pinned: string }>();
  return {
    /** The source to build the registry Pod from (its image pinned when verified), or undefined with the reason written to the pass. */
    async sourceFor(pass: CatalogSourcePass, pollDue: boolean): Promise<CatalogSourceObject | undefined> {
      const key = `${pass.key.namespace}/${pass.key.name}`;
      const policy = pass.source.metadata?.annotations?.[signaturePolicyAnnotation];
      const image = asString(pass.spec.image);
      if (!policy) {
        verified.delete(key);
        return pass.source;
      }
      let known = verified.get(key);
      if (!known || known.image !== image || known.policy !== policy || pollDue) {
        verified.delete(key);
        try {
          const found = verifier();
          if (!found) throw new Error(`no image signature verifier is booted; boot @olm/image-signatures' imageSignaturesPlugin (olm run/up do), or remove the annotation`);
          const { digest } = await found.verify({ image, policy });
          known = { image, policy, pinned: `${repositoryOf(image)}@${digest}` };
          verified.set(key, known);
        } catch (error) {
          pass.next.reason = CatalogSourceReasons.RegistryServerError;
          pass.next.message = `catalog image ${image} refused by signature policy ${policy} (annotation ${signaturePolicyAnnotation}): ${describeError(error)}; no registry Pod serves it`;
          return undefined;
        }
      }
      return { ...pass.source, spec: { ...pass.source.spec, image: known.pinned } };
    },
    forget(key: { readonly namespace: string; readonly name: string }): void {
      verified.delete(`${key.namespace}/${key.name}`);
    },
  };
}

export type CatalogImageVerification = ReturnType<typeof createCatalogImageVerification>;

import { Kinds } from '@olm/api';
import { OlmError, type CachedObject, type ImageSignatureVerifier, type ImageVerificationRequest, type ImageVerificationResult } from '@olm/core';
import type { KubeClient } from '@olm/core';
import { createOciArtifactReader, type OciArtifactReader, type OciRegistryClientOptions, type RegistryCredential } from '@olm/bundle-puller/registry';
import { ImageSignatureErrorCodes } from './signature-errors.js';
import type { SignatureLimits } from './signature-limits.js';
import { parseSignaturePolicy, type SignaturePolicy } from './signature-policy.js';
import { verifyImageSignatures } from './verify-image-signatures.js';

export interface ImageSignatureVerifierOptions {
  readonly client: () => KubeClient;
  /** Where policies (ConfigMaps) are read: OLM's own namespace, so that only who administers OLM decides what a policy trusts. Default `olm`. */
  readonly policyNamespace?: string;
  readonly limits?: Partial<SignatureLimits>;
  /** The registries' settings (insecure registries, timeouts, proxies), as the pullers have them. */
  readonly registry?: OciRegistryClientOptions;
  readonly reader?: OciArtifactReader;
}

type PolicyObject = CachedObject & { readonly data?: Record<string, string> };

/**
 * The `imageSignatureVerifier` contract: the policy a catalog names is the ConfigMap of that name in the
 * policy namespace (parsed once per resourceVersion), and the image's cosign signatures are verified against it.
 */
export function createImageSignatureVerifier(options: ImageSignatureVerifierOptions): ImageSignatureVerifier {
  const policyNamespace = options.policyNamespace ?? 'olm';
  const reader = options.reader ?? createOciArtifactReader({ userAgent: 'olm-image-signatures', ...options.registry });
  const parsed = new Map<string, { readonly version: string; readonly policy: SignaturePolicy }>();

  async function policyNamed(name: string): Promise<SignaturePolicy> {
    const source = `configmap ${policyNamespace}/${name}`;
    const object = await options.client().find<PolicyObject>({ ...Kinds.configMap, namespace: policyNamespace, name });
    if (!object) {
      parsed.delete(name);
      throw new OlmError(ImageSignatureErrorCodes.policy, `signature policy ${source} not found; create it (public keys as <name>.pub, or trusted_root.json with identities.json), or fix the catalog's olm.operatorframework.io/signature-policy annotation`);
    }
    const version = `${object.metadata?.uid ?? ''}/${object.metadata?.resourceVersion ?? ''}`;
    const cached = parsed.get(name);
    if (cached?.version === version) return cached.policy;
    const policy = parseSignaturePolicy(object.data ?? {}, source);
    parsed.set(name, { version, policy });
    return policy;
  }

  return {
    async verify(request: ImageVerificationRequest): Promise<ImageVerificationResult> {
      const policy = await policyNamed(request.policy);
      const readOptions = {
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.credentials ? { credentials: request.credentials as readonly RegistryCredential[] } : {}),
      };
      let digest = request.digest;
      if (!digest) {
        const manifest = await reader.readManifest(request.image, 4 * 1024 * 1024, readOptions);
        if (!manifest) throw new OlmError('OLM_BUNDLE_IMAGE_NOT_FOUND', `image ${request.image} not found; push it, or fix the reference`);
        digest = manifest.digest;
      }
      const { signer } = await verifyImageSignatures({ reader, image: request.image, digest, policy, ...(options.limits ? { limits: options.limits } : {}), ...readOptions });
      return { digest, signer };
    },
  };
}

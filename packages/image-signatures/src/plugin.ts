import { contribute, definePlugin, imageSignatureVerifier, kubeClient, type Plugin } from '@olm/core';
import type { OciRegistryClientOptions } from '@olm/bundle-puller/registry';
import { createImageSignatureVerifier } from './image-signature-verifier.js';
import type { SignatureLimits } from './signature-limits.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export interface ImageSignaturesPluginOptions {
  /** Where the ConfigMaps catalogs name as their signature policy are read. Default `olm`. */
  readonly policyNamespace?: string;
  /** Bounds of one image's verification (`defaultSignatureLimits` for those unset). */
  readonly signatureLimits?: Partial<SignatureLimits>;
  /** Registries reached over plain http besides loopback ones, timeouts and proxies, as the pullers are given them. */
  readonly registry?: Pick<OciRegistryClientOptions, 'insecureRegistries' | 'requestTimeoutMs' | 'proxy'>;
}

/** Contributes the `imageSignatureVerifier` point: cosign signatures checked against the policy ConfigMaps, read with the shared `kubeClient`. */
export function createImageSignaturesPlugin(options: ImageSignaturesPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'image-signatures',
    version: packageJson.version,
    deps: { client: kubeClient },
    provides: [imageSignatureVerifier],
    init(deps) {
      const verifier = createImageSignatureVerifier({
        client: () => deps.client,
        ...(options.policyNamespace ? { policyNamespace: options.policyNamespace } : {}),
        ...(options.signatureLimits ? { limits: options.signatureLimits } : {}),
        ...(options.registry ? { registry: options.registry } : {}),
      });
      return { provide: [contribute(imageSignatureVerifier, verifier)] };
    },
  });
}

/** The plugin with default options (policies in namespace `olm`). */
export const imageSignaturesPlugin = createImageSignaturesPlugin();

import { bundlePuller, contribute, definePlugin, imageSignatureVerifier, kubeClient, logger, optional, type ImageSignatureVerifier, type Plugin } from '@olm/core';
import { silentLogger } from '@olm/controller-runtime';
import type { BundleImageLimits } from './bundle-image-limits.js';
import { BundleUnpacker, type BundleUnpackerOptions } from './bundle-unpacker.js';
import { createOciRegistryClient } from './oci-registry-client.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export interface BundlePullerPluginOptions {
  /**
   * Registries bundle images are pulled from over plain http (`host` or `host:port`); `localhost`,
   * `127.0.0.1` and `[::1]` always are, every other registry is https.
   */
  readonly insecureRegistries?: readonly string[];
  /** Timeout of each request to an image registry. Default 60 s. */
  readonly registryRequestTimeoutMs?: number;
  /** Proxies for image registry requests; unset fields come from `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`. */
  readonly registryProxy?: { readonly httpProxy?: string; readonly httpsProxy?: string; readonly noProxy?: string };
  /**
   * A `kubernetes.io/dockerconfigjson` Secret whose credentials are tried for every bundle image after
   * the catalog's own pull secrets (the part node credentials play for upstream's unpack Pods; OLM v1's
   * `--global-pull-secret`).
   */
  readonly globalPullSecret?: { readonly namespace: string; readonly name: string };
  /**
   * How long a failed bundle image pull is reported (`BundleUnpackFailed`) before it is tried again. Default 5
   * minutes. An OperatorGroup's `operatorframework.io/bundle-unpack-min-retry-interval` overrides it.
   */
  readonly bundleUnpackFailedRetryMs?: number;
  /** How soon a pull that failed for another reason than its image (`ErrorPreventedUnpacking`) is tried again. Default 5 s. */
  readonly bundleUnpackErrorRetryMs?: number;
  /**
   * How long one bundle unpack may take (upstream's `--bundle-unpack-timeout`). Default 10 minutes; 0 for no
   * limit. An OperatorGroup's `operatorframework.io/bundle-unpack-timeout` overrides it.
   */
  readonly bundleUnpackTimeoutMs?: number;
  /**
   * Bounds of one bundle image: layers, compressed and uncompressed bytes, one file's size, the bytes and
   * number of `manifests/` and `metadata/` entries (`defaultBundleImageLimits` for those unset). An image
   * past one fails with `BundleUnpackFailed` and is not pulled again until the catalog names another image
   * or its ConfigMap is deleted.
   */
  readonly bundleImageLimits?: Partial<BundleImageLimits>;
}

/** A `BundleUnpacker` over a registry client, from the plugin's options. */
export function createBundlePuller(options: BundlePullerPluginOptions & Pick<BundleUnpackerOptions, 'client' | 'logger' | 'now' | 'verifier'>): BundleUnpacker {
  return new BundleUnpacker({
    client: options.client,
    ...(options.verifier ? { verifier: options.verifier } : {}),
    logger: options.logger,
    ...(options.now ? { now: options.now } : {}),
    registryClient: createOciRegistryClient({
      ...(options.insecureRegistries ? { insecureRegistries: options.insecureRegistries } : {}),
      ...(options.registryRequestTimeoutMs !== undefined ? { requestTimeoutMs: options.registryRequestTimeoutMs } : {}),
      ...(options.registryProxy ? { proxy: options.registryProxy } : {}),
    }),
    ...(options.globalPullSecret ? { globalPullSecret: options.globalPullSecret } : {}),
    ...(options.bundleUnpackFailedRetryMs !== undefined ? { failedRetryMs: options.bundleUnpackFailedRetryMs } : {}),
    ...(options.bundleUnpackErrorRetryMs !== undefined ? { errorRetryMs: options.bundleUnpackErrorRetryMs } : {}),
    ...(options.bundleUnpackTimeoutMs !== undefined ? { timeoutMs: options.bundleUnpackTimeoutMs } : {}),
    ...(options.bundleImageLimits ? { limits: options.bundleImageLimits } : {}),
    fieldManager: 'catalog-operator',
  });
}

/**
 * Contributes the `bundlePuller` point: bundle images pulled by this process with the OCI
 * distribution API and kept in ConfigMaps, written with the shared `kubeClient`. Pulls in
 * progress are stopped with the kernel.
 */
export function createBundlePullerPlugin(options: BundlePullerPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'bundle-puller',
    version: packageJson.version,
    deps: { client: kubeClient, logger: optional(logger), verifier: optional(imageSignatureVerifier) },
    provides: [bundlePuller],
    init(deps) {
      const verifier: ImageSignatureVerifier | undefined = deps.verifier;
      const puller = createBundlePuller({ ...options, client: () => deps.client, logger: deps.logger ?? silentLogger, verifier: () => verifier });
      return { provide: [contribute(bundlePuller, puller)], stop: () => puller.close() };
    },
  });
}

/** The plugin with default options. */
export const bundlePullerPlugin = createBundlePullerPlugin();

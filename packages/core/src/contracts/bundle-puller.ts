import { createSingleExtensionPoint } from '../kernel/extension-point.js';
import type { CatalogRef } from './model.js';
import type { KubeObject } from './rbac-generator.js';

/** Upstream's OperatorGroup annotation: how long an unpack may run (a Go duration; `0` for no limit). */
export const bundleUnpackTimeoutAnnotation = 'operatorframework.io/bundle-unpack-timeout';
/** Upstream's OperatorGroup annotation: how long after a failed unpack it may be tried again. */
export const bundleUnpackMinRetryIntervalAnnotation = 'operatorframework.io/bundle-unpack-min-retry-interval';

/** What to pull: a bundle of a catalog that names only its image (no `olm.bundle.object` properties). */
export interface BundlePullRequest {
  /** The bundle (CSV) name, for messages, and its image pull spec. */
  readonly bundle: { readonly name: string; readonly image: string };
  readonly catalog: CatalogRef;
  /** The CatalogSource's uid, so what the puller stores for it goes when the catalog goes. */
  readonly catalogUid?: string;
  /**
   * The CatalogSource's `spec.secrets` (in its namespace). When it lists none, the `imagePullSecrets`
   * of the namespace's `default` ServiceAccount apply, as they would to upstream's unpack Pod.
   */
  readonly pullSecrets?: readonly string[];
  /** From the OperatorGroup's `operatorframework.io/bundle-unpack-timeout` (0: none); else the puller's own. */
  readonly timeoutMs?: number;
  /** From the OperatorGroup's `operatorframework.io/bundle-unpack-min-retry-interval`; else the puller's own. */
  readonly minRetryIntervalMs?: number;
  /**
   * The catalog's `olm.operatorframework.io/signature-policy`: the image is unpacked only once the
   * `imageSignatureVerifier` finds the digest pulled signed as that policy requires.
   */
  readonly signaturePolicy?: string;
}

/** Upstream's reasons of a failed unpack: the image is at fault, or something else (the API server, …). */
export type BundlePullFailureReason = 'BundleUnpackFailed' | 'ErrorPreventedUnpacking';

/**
 * Where a bundle's pull stands. `pending` and `failed` messages become the Subscriptions'
 * `BundleUnpacking` (`UnpackingInProgress`) and `BundleUnpackFailed` conditions as they are.
 */
export type BundlePullResult =
  | { readonly state: 'unpacked'; readonly manifests: readonly KubeObject[] }
  | { readonly state: 'pending'; readonly message: string }
  | { readonly state: 'failed'; readonly reason: BundlePullFailureReason; readonly message: string; readonly retryInMs: number };

/**
 * Gets the manifests of image-only bundles for namespace resolution. `pull` never waits on a
 * registry: it answers at once with the manifests (already unpacked), `pending` (a pull runs in the
 * background; ask again later) or `failed` (ask again after `retryInMs`). Repeated calls for one
 * image share one pull, whichever namespaces ask.
 */
export interface BundlePuller {
  pull(request: BundlePullRequest): Promise<BundlePullResult>;
}

export const bundlePuller = createSingleExtensionPoint<BundlePuller>({
  id: 'olm.bundlePuller',
  description: 'the puller of bundle images (bundles that carry no olm.bundle.object manifests)',
  hint: "boot a bundle puller plugin such as @olm/bundle-puller's bundlePullerPlugin",
});

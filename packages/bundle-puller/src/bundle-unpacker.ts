import {
  bundleUnpackTimeoutAnnotation,
  describeError,
  hasErrorCode,
  isImageSignatureRefusal,
  type BundlePuller,
  type BundlePullFailureReason,
  type BundlePullRequest,
  type BundlePullResult,
  type ImageSignatureVerifier,
  type KubeClient,
  type KubeObject,
  type Logger,
} from '@olm/core';
import { isAlreadyExists } from '@olm/controller-runtime';
import { formatGoDuration } from '@olm/go-format';
import { bundleImageAnnotation, bundleUnpackFailureAnnotation, failedUnpackConfigMap, manifestsFromConfigMap, unpackedConfigMap, unpackedConfigMapName } from './bundle-files.js';
import { BundleImageBudget, defaultBundleImageLimits, isBundleImageLimitError, type BundleImageLimits } from './bundle-image-limits.js';
import { extractBundleFiles } from './layer-entries.js';
import { parseImageReference } from './image-reference.js';
import { Kinds, type DataObject } from './kinds.js';
import type { OciRegistryClient } from './oci-registry-client.js';
import { credentialsForImage, keyringFromSecret, type RegistryCredential } from './registry-credentials.js';
import { checkSignature, isVerifiedFor, withoutSignatureAnnotations } from './signature-check.js';

/** Upstream's `--bundle-unpack-timeout` default. */
export const defaultBundleUnpackTimeoutMs = 10 * 60_000;

// a pull is started again at once when the pull secrets or the signature policy change: they are how a user fixes a failed one
const secretsKey = (request: BundlePullRequest) => JSON.stringify([request.pullSecrets ?? [], request.signaturePolicy ?? null]);

export interface BundleUnpackerOptions {
  readonly client: () => KubeClient;
  /**
   * A pull secret tried after the catalog's own, for every image (what node credentials are to the
   * kubelet for upstream's unpack Pods). OLM v1 calls it `--global-pull-secret`.
   */
  readonly globalPullSecret?: { readonly namespace: string; readonly name: string };
  readonly registryClient: OciRegistryClient;
  readonly logger: Logger;
  readonly now?: () => number;
  /** How long a bundle whose image is at fault is reported failed before it is pulled again. Default 5 minutes (upstream's requeue). */
  readonly failedRetryMs?: number;
  /** How soon other failures (the API server, …) are tried again. Default 5 s. */
  readonly errorRetryMs?: number;
  /** How long one unpack may take (upstream's `--bundle-unpack-timeout`, the unpack Job's deadline). Default 10 minutes; 0 for none. */
  readonly timeoutMs?: number;
  /** Bounds of one image (layers, bytes, files); unset ones are `defaultBundleImageLimits`. */
  readonly limits?: Partial<BundleImageLimits>;
  readonly fieldManager?: string;
  /** Verifies the images of catalogs with a signature policy (the `imageSignatureVerifier` point); none: such catalogs' images fail. */
  readonly verifier?: () => ImageSignatureVerifier | undefined;
}

interface Pull {
  done: Promise<void>;
  /** The pull secrets it was started with: other ones start a new pull at once. */
  readonly secrets: string;
  failure?: { readonly reason: BundlePullFailureReason; readonly message: string; readonly failedAt: number; readonly imageAtFault: boolean; readonly terminal?: boolean };
  /** A terminal failure is in the image's ConfigMap too. */
  failureStored?: boolean;
}

/** Upstream's words for an unpack Job past its deadline (the Job controller's condition, through the BundleLookup). */
export const unpackDeadlineExceededMessage = 'bundle unpacking failed. Reason: DeadlineExceeded, and Message: Job was active longer than specified deadline';

/**
 * The `bundlePuller` contract over a registry client: the ConfigMap of a previous unpack is read, and
 * otherwise the image is pulled in the background (one pull per image, whichever namespaces ask) and
 * stored in that ConfigMap. Callers get `pending` until then and ask again later, so no reconcile
 * waits on a registry.
 */
export class BundleUnpacker implements BundlePuller {
  private readonly pulls = new Map<string, Pull>();
  private readonly aborter = new AbortController();
  private readonly now: () => number;
  private readonly failedRetryMs: number;
  private readonly errorRetryMs: number;
  private readonly timeoutMs: number;
  private readonly limits: BundleImageLimits;

  constructor(private readonly options: BundleUnpackerOptions) {
    this.now = options.now ?? Date.now;
    this.failedRetryMs = options.failedRetryMs ?? 5 * 60_000;
    this.errorRetryMs = options.errorRetryMs ?? 5_000;
    this.timeoutMs = options.timeoutMs ?? defaultBundleUnpackTimeoutMs;
    this.limits = { ...defaultBundleImageLimits, ...options.limits };
  }

  async pull(request: BundlePullRequest): Promise<BundlePullResult> {
    const { bundle, catalog } = request;
    const name = unpackedConfigMapName(bundle.image);
    const where = `${catalog.namespace}/${name}`;
    const stored = await this.options.client().find<DataObject>({ ...Kinds.configMap, namespace: catalog.namespace, name });
    if (stored && stored.metadata?.annotations?.[bundleImageAnnotation] === bundle.image) {
      const failure = stored.metadata?.annotations?.[bundleUnpackFailureAnnotation];
      if (failure !== undefined) return this.terminalFailure(failure, where);
    }
    if (stored && stored.metadata?.annotations?.[bundleImageAnnotation] === bundle.image && isVerifiedFor(stored, request.signaturePolicy)) {
      try {
        return { state: 'unpacked', manifests: manifestsFromConfigMap(stored) };
      } catch (error) {
        return {
          state: 'failed',
          reason: 'ErrorPreventedUnpacking',
          message: `the ConfigMap ${where} holding the unpacked bundle image ${bundle.image} of ${bundle.name} cannot be read: ${describeError(error)}; delete the ConfigMap to unpack the image again`,
          retryInMs: this.errorRetryMs,
        };
      }
    }
    let pull = this.pulls.get(where);
    if (pull?.failure?.terminal) {
      // once in the ConfigMap (gone now), its deletion is the way to try again; until then this memory holds
      if (!pull.failureStored) return this.terminalFailure(pull.failure.message, where);
      pull = undefined;
    }
    if (pull?.failure) {
      const { failure } = pull;
      const intervalMs = failure.imageAtFault ? (request.minRetryIntervalMs ?? this.failedRetryMs) : this.errorRetryMs;
      const retryInMs = failure.failedAt + intervalMs - this.now();
      // new pull secrets are tried at once: they are how a user fixes a private image
      if (retryInMs > 0 && pull.secrets === secretsKey(request)) {
        return { state: 'failed', reason: failure.reason, message: `${failure.message} (tried again in ${formatGoDuration(intervalMs)})`, retryInMs };
      }
      pull = undefined;
    }
    if (!pull) this.start(where, request);
    return { state: 'pending', message: `unpacking bundle image ${bundle.image} of ${bundle.name} (catalogsource ${catalog.namespace}/${catalog.name})` };
  }

  /**
   * An image that failed on one of its limits: pulling it again would fail (or, without limits, take the
   * process down) the same way, so it is not pulled again until the catalog names another image or
   * someone deletes the ConfigMap that remembers the failure.
   */
  private terminalFailure(message: string, where: string): BundlePullResult {
    return {
      state: 'failed',
      reason: 'BundleUnpackFailed',
      message: `${message} (not pulled again: delete the ConfigMap ${where} to try again)`,
      // asking again only reads the ConfigMap (or this memory): a deleted ConfigMap is noticed then
      retryInMs: this.failedRetryMs,
    };
  }

  /** Stops pulls in progress. */
  async close(): Promise<void> {
    this.aborter.abort();
    await Promise.all([...this.pulls.values()].map((pull) => pull.done));
  }

  private start(where: string, request: BundlePullRequest): void {
    const { bundle, catalog } = request;
    const image = bundle.image;
    const pull: Pull = { done: Promise.resolve(), secrets: secretsKey(request) };
    this.pulls.set(where, pull);
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    // the unpack Job's activeDeadlineSeconds: a pull still running then is given up
    const deadline = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    const signal = deadline ? AbortSignal.any([this.aborter.signal, deadline]) : this.aborter.signal;
    pull.done = (async () => {
      let notes: string[] = [];
      try {
        const found = await this.credentialsFor(image, catalog.namespace, request.pullSecrets ?? []);
        notes = found.notes;
        const budget = new BundleImageBudget(this.limits, image);
        const pulled = await this.options.registryClient.pullImage(image, { signal, credentials: found.credentials, budget });
        const policy = request.signaturePolicy;
        const verified = policy === undefined ? {} : await checkSignature(this.options.verifier?.(), { image, digest: pulled.referenceDigest, policy, catalog, credentials: found.credentials, signal });
        const files = await extractBundleFiles(pulled.layers, image, budget);
        signal.throwIfAborted();
        const configMap = unpackedConfigMap({ image, digest: pulled.digest, files, catalog, ...(request.catalogUid ? { catalogUid: request.catalogUid } : {}) });
        const stored = { ...configMap, metadata: { ...configMap.metadata, annotations: { ...withoutSignatureAnnotations(configMap.metadata.annotations as Record<string, string> | undefined), ...verified } } };
        await this.store(stored);
        this.options.logger.info('bundle image unpacked', { image, configMap: where, digest: pulled.digest });
        this.pulls.delete(where);
      } catch (error) {
        if (this.aborter.signal.aborted) return;
        const what = `bundle image ${image} of ${bundle.name} (catalogsource ${catalog.namespace}/${catalog.name})`;
        if (deadline?.aborted) {
          const message = `${unpackDeadlineExceededMessage}: unpacking ${what} took longer than ${formatGoDuration(timeoutMs)}; raise the OperatorGroup's ${bundleUnpackTimeoutAnnotation} annotation or the --bundle-unpack-timeout flag, or check that the registry answers`;
          pull.failure = { reason: 'BundleUnpackFailed', message, failedAt: this.now(), imageAtFault: true };
          this.options.logger.warn('bundle image unpack timed out', { image, timeout: formatGoDuration(timeoutMs) });
          return;
        }
        const imageAtFault = isImageSignatureRefusal(error) || (hasErrorCode(error) && (error.code.startsWith('OLM_BUNDLE_IMAGE_') || error.code.startsWith('OLM_BUNDLE_UNPACK_')));
        const unauthorized = hasErrorCode(error, 'OLM_BUNDLE_IMAGE_UNAUTHORIZED');
        const message = `unpacking ${what} failed: ${describeError(error)}${unauthorized && notes.length > 0 ? ` (pull secrets: ${notes.join('; ')})` : ''}`;
        const terminal = hasErrorCode(error) && isBundleImageLimitError(error.code);
        pull.failure = { reason: imageAtFault ? 'BundleUnpackFailed' : 'ErrorPreventedUnpacking', message, failedAt: this.now(), imageAtFault, terminal };
        this.options.logger.warn('bundle image unpack failed', { image, error: describeError(error) });
        if (terminal) pull.failureStored = await this.rememberFailure(image, message, request);
      }
    })();
  }

  /**
   * The credentials that apply to an image: those of the catalog's pull secrets (or of the `default`
   * ServiceAccount's image pull secrets when it lists none), then the global pull secret's. A secret
   * that is missing or holds no registry credentials is skipped with a note.
   */
  private async credentialsFor(image: string, namespace: string, listed: readonly string[]): Promise<{ credentials: RegistryCredential[]; notes: string[] }> {
    const client = this.options.client();
    let names = listed.filter((name) => name !== '');
    if (names.length === 0) {
      const account = await client.find<KubeObject & { imagePullSecrets?: Array<{ name?: string }> }>({ ...Kinds.serviceAccount, namespace, name: 'default' });
      names = (account?.imagePullSecrets ?? []).map((reference) => reference.name ?? '').filter(Boolean);
    }
    const references = names.map((name) => ({ namespace, name }));
    if (this.options.globalPullSecret) references.push(this.options.globalPullSecret);
    const reference = parseImageReference(image);
    const credentials: RegistryCredential[] = [];
    const notes: string[] = [];
    for (const { namespace: secretNamespace, name } of references) {
      const secret = await client.find<DataObject>({ ...Kinds.secret, namespace: secretNamespace, name });
      if (!secret) {
        notes.push(`secret ${secretNamespace}/${name} not found`);
        continue;
      }
      const { entries, problem } = keyringFromSecret(secret);
      if (problem) notes.push(problem);
      const matching = credentialsForImage(entries, reference);
      if (matching.length === 0 && !problem) notes.push(`secret ${secretNamespace}/${name} has no credentials for ${reference.registry}`);
      credentials.push(...matching);
    }
    return { credentials, notes };
  }

  /** Keeps a terminal failure in the image's ConfigMap, so that a restarted process does not pull the image again either. */
  private async rememberFailure(image: string, message: string, request: BundlePullRequest): Promise<boolean> {
    try {
      await this.store(failedUnpackConfigMap({ image, message, catalog: request.catalog, ...(request.catalogUid ? { catalogUid: request.catalogUid } : {}) }));
      return true;
    } catch (error) {
      // still remembered in memory; a restart pulls once more and fails on the same limit
      this.options.logger.warn('bundle image unpack failure not stored', { image, error: describeError(error) });
      return false;
    }
  }

  private async store(configMap: KubeObject): Promise<void> {
    const client = this.options.client();
    const fieldManager = this.options.fieldManager ?? 'catalog-operator';
    try {
      await client.create(configMap, { fieldManager });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      // left by an older unpack of another image with the same name (or an interrupted write): replace it
      const existing = await client.get({ ...Kinds.configMap, namespace: configMap.metadata.namespace!, name: configMap.metadata.name! });
      await client.replace({ ...configMap, metadata: { ...configMap.metadata, resourceVersion: existing.metadata?.resourceVersion } }, { fieldManager });
    }
  }
}

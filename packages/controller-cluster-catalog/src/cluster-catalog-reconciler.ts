import { AvailabilityModes, DeleteServerCacheFinalizer, Kinds, MetadataNameLabel, type ClusterCatalog, type ClusterCatalogStatus } from '@olm/api';
import { describeError, hasErrorCode, isImageSignatureRefusal, type CachedObject, type KubeClient, type ReconcileContext, type Reconciler, type ReconcileResult } from '@olm/core';
import { isNotFound, updateObject, writeStatusIfChanged } from '@olm/controller-runtime';
import { isDeepStrictEqual } from 'node:util';
import { ClusterCatalogErrorCodes, repositoryOf, type LoadedCatalog } from './catalog-source.js';
import { setNotServing, setProgressing, setServing, setUserSpecifiedUnavailable, withKnownConditions, type ServedContent } from './cluster-catalog-status.js';
import { pollIntervalMs, sourceOf, type CatalogSourceSpec } from './cluster-catalog-spec.js';
import type { ServedCatalogs } from './served-catalogs.js';

export const fieldManager = 'catalogd';

/** What was last served for a catalog (upstream keeps the same in memory): a restart unpacks every catalog again. */
interface Unpacked extends ServedContent {
  readonly source: string;
  readonly generation: number;
  readonly lastPoll: number;
}

/** What the reconciler needs from its controller: the client, the served content, how to read a source, the base URL. */
export interface ClusterCatalogReconcilerParts {
  readonly client: () => KubeClient;
  readonly served: () => ServedCatalogs;
  readonly baseUrl: (name: string) => string;
  /** Reads the source; `current` is the digest ref served now, for a poll that finds nothing new (undefined then). */
  readonly load: (source: CatalogSourceSpec, current: string | undefined, signal: AbortSignal) => Promise<LoadedCatalog | undefined>;
  readonly now: () => Date;
  /** How long a minute of `pollIntervalMinutes` lasts (tests shorten it). */
  readonly pollMinuteMs: number;
}

interface CatalogObject extends CachedObject {
  metadata: NonNullable<CachedObject['metadata']> & { name: string; deletionTimestamp?: string | null; finalizers?: string[] };
  spec: ClusterCatalog['spec'];
  status?: ClusterCatalogStatus;
}

/**
 * The ClusterCatalog controller (upstream catalogd's `clustercatalog_controller.go`): unpacks each
 * catalog's source into the content store the HTTPS server answers from, keeps its status (Progressing,
 * Serving, resolvedSource, urls.base, lastUnpacked), its `metadata.name` label and its
 * `delete-server-cache` finalizer, polls tags, and removes the content when the catalog is made
 * Unavailable or deleted. One catalog is unpacked at a time, so that the image and catalog limits bound
 * the process, not each catalog.
 */
export function createClusterCatalogReconciler(parts: ClusterCatalogReconcilerParts): Reconciler {
  const unpacked = new Map<string, Unpacked>();
  const forget = async (name: string) => {
    unpacked.delete(name);
    await parts.served().remove(name);
  };
  return {
    name: 'cluster-catalog',
    for: Kinds.clusterCatalog,
    async reconcile({ name }, context) {
      let catalog = context.cache.get(Kinds.clusterCatalog, name) as CatalogObject | undefined;
      if (!catalog) return forget(name);
      if (catalog.spec?.availabilityMode === AvailabilityModes.unavailable) {
        await forget(name);
        await ensureMetadata(parts, catalog, false);
        return writeStatus(parts, catalog, (status, generation, now) => setUserSpecifiedUnavailable(status, generation, now));
      }
      if (catalog.metadata.deletionTimestamp) {
        if (!catalog.metadata.finalizers?.includes(DeleteServerCacheFinalizer)) return;
        await forget(name);
        await ensureMetadata(parts, catalog, false);
        return;
      }
      catalog = await ensureMetadata(parts, catalog, true);
      if (!catalog) return;
      return unpackAndServe(parts, unpacked, catalog, context);
    },
  };
}

/** The `metadata.name` label always; the finalizer while the catalog's content is kept. Returns the object as stored (undefined once gone). */
async function ensureMetadata(parts: ClusterCatalogReconcilerParts, catalog: CatalogObject, withFinalizer: boolean): Promise<CatalogObject | undefined> {
  const wanted = (object: CatalogObject) => {
    const finalizers = (object.metadata.finalizers ?? []).filter((finalizer) => finalizer !== DeleteServerCacheFinalizer);
    if (withFinalizer && !object.metadata.deletionTimestamp) finalizers.push(DeleteServerCacheFinalizer);
    return { labels: { ...object.metadata.labels, [MetadataNameLabel]: object.metadata.name }, finalizers };
  };
  const isDone = (object: CatalogObject) => {
    const { labels, finalizers } = wanted(object);
    return isDeepStrictEqual(object.metadata.labels ?? {}, labels) && isDeepStrictEqual([...(object.metadata.finalizers ?? [])].sort(), [...finalizers].sort());
  };
  if (isDone(catalog)) return catalog;
  try {
    return await updateObject<CatalogObject>(
      parts.client(),
      { ...Kinds.clusterCatalog, name: catalog.metadata.name },
      (live) => {
        if (isDone(live)) return false;
        const { labels, finalizers } = wanted(live);
        live.metadata.labels = labels;
        live.metadata.finalizers = finalizers;
        return true;
      },
      { fieldManager },
    );
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

type StatusChange = (status: ClusterCatalogStatus, generation: number, now: string) => void;

/** Writes the status when the change makes it differ (conflicts retried on the latest object). */
async function writeStatus(parts: ClusterCatalogReconcilerParts, catalog: CatalogObject, change: StatusChange): Promise<void> {
  const now = parts.now().toISOString().replace(/\.\d+Z$/, 'Z');
  const desired = (live: CatalogObject) => {
    const status = withKnownConditions(live.status);
    change(status, live.metadata.generation ?? 0, now);
    return status;
  };
  await writeStatusIfChanged(parts.client(), { ...Kinds.clusterCatalog, name: catalog.metadata.name }, catalog, desired, { fieldManager });
}

/** Unpacks when nothing is served yet, the spec or source changed, or a poll is due; else keeps the status and waits for the next poll. */
async function unpackAndServe(parts: ClusterCatalogReconcilerParts, unpacked: Map<string, Unpacked>, catalog: CatalogObject, context: ReconcileContext): Promise<ReconcileResult | void> {
  const name = catalog.metadata.name;
  const generation = catalog.metadata.generation ?? 0;
  const source = sourceOf(catalog);
  if (!source.ok) {
    await writeStatus(parts, catalog, (status, observed, now) => setProgressing(status, observed, now, { message: source.message, terminal: true }));
    return;
  }
  const interval = pollIntervalMs(catalog, parts.pollMinuteMs);
  const previous = unpacked.get(name);
  const served = previous && parts.served().has(name) ? previous : undefined;
  const pollDue = served !== undefined && interval !== undefined && parts.now().getTime() >= served.lastPoll + interval;
  if (served && served.source === source.key && served.generation === generation && !pollDue) {
    await writeStatus(parts, catalog, (status, observed, now) => {
      setServing(status, served.generation, now, served);
      setProgressing(status, served.generation, now);
    });
    return nextPoll(served.lastPoll, interval, parts.now());
  }
  let loaded: LoadedCatalog | undefined;
  try {
    loaded = await parts.load(source.spec, served?.source === source.key ? served.resolvedRef : undefined, context.signal);
  } catch (error) {
    unpacked.delete(name);
    const terminal = hasErrorCode(error, ClusterCatalogErrorCodes.unknownDirectory) || hasErrorCode(error, ClusterCatalogErrorCodes.noSignatureVerifier);
    // content that a signature policy refuses (or cannot check) is not served, also not the content served before
    const refused = isSignatureFailure(error);
    if (refused) await parts.served().remove(name);
    await writeStatus(parts, catalog, (status, observed, now) => {
      if (refused) setNotServing(status, observed, now);
      setProgressing(status, observed, now, { message: `source catalog content: ${describeError(error)}`, terminal });
    });
    if (terminal) return;
    throw error;
  }
  const now = parts.now();
  let content: ServedContent | undefined = loaded === undefined ? served : undefined;
  if (loaded) {
    const revision = await parts.served().serve(name, loaded.catalog, now);
    // a directory has no image digest: the served content's own (sha256 of the JSON Lines) names it
    const resolvedRef = loaded.resolvedRef ?? `${repositoryOf(source.spec.ref)}@sha256:${revision.etag.replaceAll('"', '')}`;
    const unchanged = served && served.resolvedRef === resolvedRef;
    content = { resolvedRef, lastUnpacked: unchanged ? served.lastUnpacked : now.toISOString(), baseUrl: parts.baseUrl(name) };
  }
  if (!content) return;
  unpacked.set(name, { ...content, source: source.key, generation, lastPoll: now.getTime() });
  const servedContent = content;
  await writeStatus(parts, catalog, (status, observed, at) => {
    setProgressing(status, observed, at);
    setServing(status, observed, at, servedContent);
  });
  return nextPoll(now.getTime(), interval, now);
}

/** Requeue at the next poll, with upstream's up-to-1% jitter so that many catalogs do not poll at once. */
function nextPoll(lastPoll: number, interval: number | undefined, now: Date): ReconcileResult | void {
  if (interval === undefined) return;
  const jittered = interval * (1 + Math.random() * 0.01);
  return { requeueAfter: Math.max(0, lastPoll + jittered - now.getTime()) };
}

/** A catalog image refused for its signatures, or whose signature policy cannot be used. */
function isSignatureFailure(error: unknown): boolean {
  return isImageSignatureRefusal(error) || hasErrorCode(error, 'OLM_IMAGE_SIGNATURE_POLICY') || hasErrorCode(error, ClusterCatalogErrorCodes.noSignatureVerifier);
}

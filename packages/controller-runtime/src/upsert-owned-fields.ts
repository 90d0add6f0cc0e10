import type { CachedObject, ObjectReader } from '@olm/core';
import { isAlreadyExists, isNotFound } from './errors.js';
import type { KubeClient } from '@olm/core';
import { referenceOf } from './kube-client.js';
import { isSemanticallyEqual } from './semantic-equality.js';
import { updateObject } from './status-update.js';

/**
 * Creates the object, or writes the fields the caller owns of it (`owned`) when the live ones differ, judged
 * semantically against the informer cache: an object already as wanted costs no request. `metadata.labels`
 * stands for the caller's label keys (labels others add stay); any other entry is a top-level field OLM owns
 * whole (removed when the desired object lacks it). What the caller does not own is kept as it is live, such as
 * the `rules` kube's aggregation controller writes into an aggregated ClusterRole: a write never empties
 * them. The cache may be behind: a create that meets an existing object updates the live one instead.
 */
export async function upsertOwnedFields(
  client: KubeClient,
  cache: ObjectReader,
  object: CachedObject,
  owned: readonly string[],
  { fieldManager }: { readonly fieldManager: string },
): Promise<void> {
  const kind = { apiVersion: object.apiVersion!, kind: object.kind! };
  const cached = cache.get(kind, object.metadata!.name!, object.metadata?.namespace || undefined);
  if (cached && hasOwnedFields(cached, object, owned)) return;
  if (!cached) {
    try {
      await client.create(object, { fieldManager });
      return;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
  try {
    await updateObject(
      client,
      referenceOf(object),
      (live) => {
        if (hasOwnedFields(live, object, owned)) return false;
        setOwnedFields(live, object, owned);
      },
      { fieldManager },
    );
  } catch (error) {
    // Deleted since the cache saw it.
    if (!isNotFound(error)) throw error;
    await client.create(object, { fieldManager });
  }
}

function hasOwnedFields(live: CachedObject, desired: CachedObject, owned: readonly string[]): boolean {
  return owned.every((field) =>
    field === 'metadata.labels'
      ? Object.entries(desired.metadata?.labels ?? {}).every(([key, value]) => live.metadata?.labels?.[key] === value)
      : isSemanticallyEqual(live[field], desired[field]),
  );
}

function setOwnedFields(live: CachedObject, desired: CachedObject, owned: readonly string[]): void {
  for (const field of owned) {
    if (field === 'metadata.labels') live.metadata = { ...live.metadata, labels: { ...(live.metadata?.labels ?? {}), ...(desired.metadata?.labels ?? {}) } };
    else if (desired[field] === undefined) delete live[field];
    else live[field] = structuredClone(desired[field]);
  }
}

import { isDeepStrictEqual } from 'node:util';
import type { CachedObject } from '@olm/core';
import { OlmError } from '@olm/core';
import { isConflict, isNotFound, RuntimeErrorCodes } from './errors.js';
import type { KubeClient, KubeObjectReference } from '@olm/core';
import { isSemanticallyEqual } from './semantic-equality.js';

export interface UpdateWithRetryOptions {
  /** Attempts before giving up with `OLM_RUNTIME_CONFLICT_RETRIES_EXHAUSTED`. Default 5. */
  readonly attempts?: number;
  readonly fieldManager?: string;
}

/**
 * Changes a function of the object. Gets a fresh copy, lets `mutate` change it in place (return
 * `false` to skip the write), and writes it back; on 409 Conflict it re-reads and re-applies
 * `mutate` to the newer copy. `mutate` must therefore be idempotent and based only on its input.
 */
export type Mutation<T extends CachedObject> = (object: T) => void | boolean;

/** Writes the status through the status subresource, retrying conflicts. Returns the stored object. */
export function updateStatus<T extends CachedObject = CachedObject>(
  client: KubeClient,
  reference: KubeObjectReference,
  mutate: Mutation<T>,
  options: UpdateWithRetryOptions = {},
): Promise<T> {
  return writeWithRetry(client, reference, mutate, options, (object) => client.replaceStatus(object, options));
}

/**
 * Writes the status `desired` computes from an object, when it differs from the stored one: nothing is
 * sent when `cached` (the informer's copy) already has it; conflicts are retried on the latest object;
 * an object deleted meanwhile is no error.
 */
export async function writeStatusIfChanged<T extends CachedObject & { status?: unknown }>(
  client: KubeClient,
  reference: KubeObjectReference,
  cached: T,
  desired: (object: T) => NonNullable<T['status']>,
  options: UpdateWithRetryOptions = {},
): Promise<void> {
  if (isDeepStrictEqual(desired(cached), cached.status ?? {})) return;
  try {
    await updateStatus<T>(
      client,
      reference,
      (live) => {
        const status = desired(live);
        if (isDeepStrictEqual(status, live.status ?? {})) return false;
        live.status = status;
        return true;
      },
      options,
    );
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Writes the whole object (spec, labels, …) with PUT, retrying conflicts. Returns the stored object. */
export function updateObject<T extends CachedObject = CachedObject>(
  client: KubeClient,
  reference: KubeObjectReference,
  mutate: Mutation<T>,
  options: UpdateWithRetryOptions = {},
): Promise<T> {
  return writeWithRetry(client, reference, mutate, options, (object) => client.replace(object, options));
}

async function writeWithRetry<T extends CachedObject>(
  client: KubeClient,
  reference: KubeObjectReference,
  mutate: Mutation<T>,
  options: UpdateWithRetryOptions,
  write: (object: T) => Promise<T>,
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 5);
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const current = await client.get<T>(reference);
    const changed = structuredClone(current);
    if (mutate(changed) === false) return current;
    // Writing an unchanged object would bump nothing but still cost a round trip and a watch event.
    if (isSemanticallyEqual(changed, current)) return current;
    try {
      return await write(changed);
    } catch (error) {
      if (!isConflict(error)) throw error;
      lastError = error;
    }
  }
  throw new OlmError(
    RuntimeErrorCodes.conflictRetriesExhausted,
    `${reference.kind} ${reference.namespace ? `${reference.namespace}/` : ''}${reference.name} kept changing; gave up after ${attempts} conflicting writes`,
    { cause: lastError, details: { ...reference, attempts } },
  );
}

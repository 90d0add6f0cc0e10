import { OwnerNameLabel } from '@olm/bundle-render';
import type { KubeClient } from '@olm/core';
import type { KubeObject } from '@olm/core';
import { OlmError } from '@olm/core';
import { RevisionErrorCodes } from './errors.js';
import { isContainedIn, yieldForeignFields } from './field-ownership.js';
import { describeObject, listed, objectKey, ownerNameOf, referenceTo } from './object-identity.js';
import type { RevisionContent } from './revision-records.js';

/** Objects not yet listed as this owner's are read this many at a time. */
const readConcurrency = 8;

export interface PhasesOutcome {
  readonly complete: boolean;
  /** What is awaited, when not complete. */
  readonly waitingFor?: string;
  /** How many objects were written (0 when everything was already as wanted). */
  readonly written: number;
  /** Fields left to other field managers, `Deployment ns/name .spec.replicas (kubectl)`. */
  readonly yielded: string[];
}

/**
 * Applies a revision's phases in order with server-side apply, as the ServiceAccount. An object
 * already holding every desired field is not written. After the CRDs, waits (returns incomplete)
 * until each is Established, so custom resources and the operator never meet a CRD not yet served.
 */
export async function applyPhases(account: KubeClient, content: RevisionContent, fieldManager: string, ownerName: string): Promise<PhasesOutcome> {
  const lives = await readAll(account, content, ownerName);
  let written = 0;
  const yielded: string[] = [];
  for (const phase of content.phases) {
    const applied: KubeObject[] = [];
    for (const desired of phase.objects) {
      const result = await applyObject(account, desired, lives.get(objectKey(desired)), fieldManager);
      if (result.written) written += 1;
      yielded.push(...result.yielded.map((field) => `${describeObject(desired)} ${field}`));
      applied.push(result.live);
    }
    if (phase.name === 'crds') {
      const pending = applied.filter((crd) => !isEstablished(crd));
      if (pending.length > 0) {
        return { complete: false, waitingFor: `CustomResourceDefinition ${pending.map((crd) => crd.metadata.name).join(', ')} to be Established`, written, yielded };
      }
    }
  }
  return { complete: true, written, yielded };
}

/**
 * Reads every object first, so that a collision is refused before anything is written. Objects
 * already this owner's come from one labelled list per kind and namespace (a reconcile of an
 * installed bundle costs a few lists, not a read per object); the others are read one by one, which
 * also finds objects someone else created under the same name.
 */
async function readAll(account: KubeClient, content: RevisionContent, ownerName: string): Promise<Map<string, KubeObject | undefined>> {
  const objects = content.phases.flatMap((phase) => phase.objects);
  const lives = new Map<string, KubeObject | undefined>();
  const groups = new Map<string, KubeObject>();
  for (const object of objects) groups.set(`${object.apiVersion}/${object.kind}/${object.metadata.namespace ?? ''}`, object);
  for (const sample of groups.values()) {
    for (const live of await listOwned(account, sample, ownerName)) lives.set(objectKey(live), live);
  }
  const unlisted = objects.filter((object) => !lives.has(objectKey(object)));
  for (let start = 0; start < unlisted.length; start += readConcurrency) {
    const batch = unlisted.slice(start, start + readConcurrency);
    const found = await Promise.all(batch.map((object) => account.find<KubeObject>(referenceTo(object))));
    batch.forEach((object, index) => lives.set(objectKey(object), found[index]));
  }
  const collisions = [...lives.values()].filter((live): live is KubeObject => live !== undefined && ownerNameOf(live) !== ownerName);
  if (collisions.length > 0) throw collisionError(collisions, ownerName);
  return lives;
}

async function listOwned(account: KubeClient, sample: KubeObject, ownerName: string): Promise<KubeObject[]> {
  const kind = { apiVersion: sample.apiVersion, kind: sample.kind };
  const owned: KubeObject[] = [];
  let next: string | undefined;
  do {
    const page = await account.list<KubeObject>(kind, {
      labelSelector: `${OwnerNameLabel}=${ownerName}`,
      limit: 500,
      ...(sample.metadata.namespace ? { namespace: sample.metadata.namespace } : {}),
      ...(next ? { continue: next } : {}),
    });
    owned.push(...page.items);
    next = page.continue;
  } while (next);
  return owned;
}

async function applyObject(account: KubeClient, desired: KubeObject, live: KubeObject | undefined, fieldManager: string): Promise<{ live: KubeObject; written: boolean; yielded: string[] }> {
  if (live && isContainedIn(desired, live)) return { live, written: false, yielded: [] };
  const { object, yielded, force } = live ? yieldForeignFields(desired, live, fieldManager) : { object: desired, yielded: [], force: false };
  if (live && isContainedIn(object, live)) return { live, written: false, yielded };
  const applied = await account.apply<KubeObject>(object, { fieldManager, force });
  return { live: applied, written: true, yielded };
}

/** Another extension's objects, or ones OLM v1 did not create, are never adopted (upstream refuses both too). */
function collisionError(collisions: readonly KubeObject[], ownerName: string): OlmError {
  const described = collisions.map((live) => {
    const owner = ownerNameOf(live);
    return `${describeObject(live)} ${owner === undefined ? 'exists and was not installed by a ClusterExtension' : `belongs to ClusterExtension ${owner}`}`;
  });
  return new OlmError(
    RevisionErrorCodes.objectCollision,
    `ClusterExtension ${ownerName} will not take over objects it did not install: ${listed(described)}; delete them, or remove them from one of the bundles`,
    { details: { objects: collisions.map(describeObject) } },
  );
}

function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd as { status?: { conditions?: { type?: string; status?: string }[] } }).status?.conditions ?? [];
  return conditions.some((condition) => condition.type === 'Established' && condition.status === 'True');
}

import type { KubeClient } from '@olm/controller-runtime';
import type { KubeObject } from '@olm/core';
import { OlmError } from '@olm/core';
import { RevisionErrorCodes } from './errors.js';
import { isContainedIn, yieldForeignFields } from './field-ownership.js';
import { describeObject, ownerNameOf, referenceTo } from './object-identity.js';
import type { RevisionContent } from './revision-records.js';

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
  let written = 0;
  const yielded: string[] = [];
  for (const phase of content.phases) {
    const applied: KubeObject[] = [];
    for (const desired of phase.objects) {
      const result = await applyObject(account, desired, fieldManager, ownerName);
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

async function applyObject(account: KubeClient, desired: KubeObject, fieldManager: string, ownerName: string): Promise<{ live: KubeObject; written: boolean; yielded: string[] }> {
  const live = await account.find<KubeObject>(referenceTo(desired));
  if (live) refuseCollision(live, ownerName);
  if (live && isContainedIn(desired, live)) return { live, written: false, yielded: [] };
  const { object, yielded, force } = live ? yieldForeignFields(desired, live, fieldManager) : { object: desired, yielded: [], force: false };
  if (live && isContainedIn(object, live)) return { live, written: false, yielded };
  const applied = await account.apply<KubeObject>(object, { fieldManager, force });
  return { live: applied, written: true, yielded };
}

/** Another extension's object, or one OLM v1 did not create, is never adopted (upstream refuses both too). */
function refuseCollision(live: KubeObject, ownerName: string): void {
  const owner = ownerNameOf(live);
  if (owner === ownerName) return;
  const holder = owner === undefined ? 'exists and was not installed by a ClusterExtension' : `belongs to ClusterExtension ${owner}`;
  throw new OlmError(RevisionErrorCodes.objectCollision, `${describeObject(live)} ${holder}; ClusterExtension ${ownerName} will not take it over: delete it, or remove it from one of the bundles`, {
    details: { object: describeObject(live), owner: owner ?? null },
  });
}

function isEstablished(crd: KubeObject): boolean {
  const conditions = (crd as { status?: { conditions?: { type?: string; status?: string }[] } }).status?.conditions ?? [];
  return conditions.some((condition) => condition.type === 'Established' && condition.status === 'True');
}

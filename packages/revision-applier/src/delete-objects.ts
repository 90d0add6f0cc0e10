import type { KubeClient } from '@olm/core';
import { isNotFound } from '@olm/controller-runtime';
import type { KubeObject } from '@olm/core';
import { describeObject, ownerNameOf, referenceTo } from './object-identity.js';

/**
 * Deletes the objects still labelled as `ownerName`'s (one another extension has taken since is
 * left alone), as the ServiceAccount, and returns those still present: finalizers pending, or a
 * CRD whose custom resources are being removed.
 */
export async function deleteObjects(account: KubeClient, objects: readonly KubeObject[], ownerName: string): Promise<string[]> {
  const pending: string[] = [];
  for (const object of objects) {
    const reference = referenceTo(object);
    const live = await account.find<KubeObject>(reference);
    if (!live || ownerNameOf(live) !== ownerName) continue;
    if (!live.metadata['deletionTimestamp']) {
      try {
        await account.delete(reference, { propagationPolicy: 'Background' });
      } catch (error) {
        if (isNotFound(error)) continue;
        throw error;
      }
      if (!(await account.find(reference))) continue;
    }
    pending.push(describeObject(object));
  }
  return pending;
}

import { componentLabelKey } from '@olm/controller-operators';
import { isNotFound, type KubeClient } from '@olm/controller-runtime';
import type { Json } from './install-plans.js';
import type { ObjectRef } from './uninstall-plan.js';

const crdKind = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/**
 * The last step of `olm uninstall`, as kubectl-operator's uninstall deletes the `Operator`: once none
 * of its components carries its label any more, the Operator goes (OLM would make it again while one
 * did). CRDs the uninstall keeps lose the label first: they are no longer part of this operator.
 */
export async function removeOperator(client: KubeClient, operator: ObjectRef, keptCrdNames: readonly string[], until: (done: () => Promise<boolean>) => Promise<void>): Promise<void> {
  const label = componentLabelKey(operator.name);
  for (const name of keptCrdNames) {
    const crd = await client.find<Json>({ ...crdKind, name });
    if (crd?.metadata?.labels?.[label] === undefined) continue;
    await client.patch({ ...crdKind, name }, { metadata: { labels: { [label]: null } } }, { type: 'merge', fieldManager: 'olm-uninstall' });
  }
  // OLM's caches may still show a component for a moment and make the Operator again: it must stay gone
  // for a few polls in a row, and is deleted again when it comes back without components.
  let absentPolls = 0;
  await until(async () => {
    const current = await client.find<Json>(operator);
    if (!current) return ++absentPolls >= stillGonePolls;
    absentPolls = 0;
    if ((await labelledComponents(client, current, label)).length > 0) return false;
    try {
      await client.delete(operator);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return false;
  });
}

const stillGonePolls = 4;

/** The components the Operator's status lists that still exist with its label. */
async function labelledComponents(client: KubeClient, operator: Json, label: string): Promise<ObjectRef[]> {
  // The status is the controller's, but anyone may edit it: skip entries that name no object.
  const listed: unknown = operator.status?.components?.refs;
  const refs = (Array.isArray(listed) ? listed : []).filter(
    (ref): ref is ObjectRef => typeof ref?.apiVersion === 'string' && typeof ref?.kind === 'string' && typeof ref?.name === 'string' && ref.name !== '',
  );
  const present = await Promise.all(
    refs.map(async (ref) => {
      const object = await client.find<Json>({ apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) });
      return object?.metadata?.labels?.[label] !== undefined ? ref : undefined;
    }),
  );
  return present.filter((ref): ref is ObjectRef => ref !== undefined);
}

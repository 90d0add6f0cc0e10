import type { CachedObject, KubeClient, ObjectReader } from '@olm/core';
import { apiStatusCode, isNotFound } from '@olm/controller-runtime';
import { componentKinds, fieldManager, type ComponentKind } from './component-kinds.js';
import { componentLabelKey } from './component-labels.js';

export interface Component {
  readonly kind: ComponentKind;
  readonly object: CachedObject;
}

/** Every object labelled as a component of the Operator, of every component kind, from the cache. */
export function listComponents(cache: ObjectReader, operatorName: string): Component[] {
  const labelSelector = componentLabelKey(operatorName);
  return componentKinds.flatMap((kind) => cache.list(kind, { labelSelector }).map((object) => ({ kind, object })));
}

/**
 * Whether one of the components the cache holds still exists with the Operator's label, asked of
 * the API server: right after an uninstall the cache may still hold components that are gone or
 * unlabelled, and an Operator created from them would come back with nothing in it. One GET per
 * component until one is found (the Subscription first), and only while the Operator is missing.
 */
export async function hasLiveComponent(client: KubeClient, operatorName: string, components: readonly Component[]): Promise<boolean> {
  const key = componentLabelKey(operatorName);
  for (const { kind, object } of components) {
    try {
      const live = await client.find(referenceOf(kind, object));
      if (live?.metadata?.labels?.[key] !== undefined) return true;
    } catch (error) {
      // A kind OLM may not read there cannot show that a component lives.
      if (apiStatusCode(error) !== 403) throw error;
    }
  }
  return false;
}

function referenceOf(kind: ComponentKind, object: CachedObject) {
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    name: object.metadata?.name ?? '',
    ...(kind.namespaced ? { namespace: object.metadata?.namespace ?? '' } : {}),
  };
}

/**
 * Adds the Operator's component label (`operators.coreos.com/<operator>: ""`) to an object that
 * lacks it, with a merge patch of that one label (nothing else of the object is written). Returns
 * whether it wrote; an object gone meanwhile is left alone.
 */
export async function adopt(client: KubeClient, kind: ComponentKind, object: CachedObject, operatorName: string): Promise<boolean> {
  const key = componentLabelKey(operatorName);
  if (object.metadata?.labels?.[key] !== undefined) return false;
  return patchLabel(client, kind, object, { [key]: '' });
}

/** Removes the Operator's component label from an object that has it. Returns whether it wrote. */
export async function disown(client: KubeClient, kind: ComponentKind, object: CachedObject, operatorName: string): Promise<boolean> {
  const key = componentLabelKey(operatorName);
  if (object.metadata?.labels?.[key] === undefined) return false;
  return patchLabel(client, kind, object, { [key]: null });
}

async function patchLabel(client: KubeClient, kind: ComponentKind, object: CachedObject, labels: Record<string, string | null>): Promise<boolean> {
  try {
    await client.patch(referenceOf(kind, object), { metadata: { labels } }, { type: 'merge', fieldManager });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

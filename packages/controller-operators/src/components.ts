import type { CachedObject, ObjectReader } from '@olm/core';
import { hasErrorCode } from '@olm/core';
import { apiStatusCode, isNotFound, RuntimeErrorCodes, type KubeClient } from '@olm/controller-runtime';
import { componentKinds, fieldManager, type ComponentKind } from './component-kinds.js';
import { componentLabelKey } from './component-labels.js';

export interface Component {
  readonly kind: ComponentKind;
  readonly object: CachedObject;
}

/**
 * Objects of a kind matching a label selector: from the cache for cached kinds, else from the API
 * server (filtered there). A kind the server does not serve, or OLM may not list there (an OLM limited
 * to some namespaces by its RBAC), has none.
 */
export async function listOfKind(
  client: KubeClient,
  cache: ObjectReader,
  kind: ComponentKind,
  options: { readonly labelSelector: string; readonly namespace?: string },
): Promise<readonly CachedObject[]> {
  const scope = kind.namespaced && options.namespace ? { namespace: options.namespace } : {};
  if (kind.cached) return cache.list(kind, { ...scope, labelSelector: options.labelSelector });
  return listFromServer(client, kind, { ...scope, labelSelector: options.labelSelector });
}

/** A kind the server does not serve, or this controller may not list, has no components. */
async function listFromServer(client: KubeClient, kind: ComponentKind, options: { readonly labelSelector: string; readonly namespace?: string; readonly limit?: number }): Promise<readonly CachedObject[]> {
  try {
    return (await client.list(kind, options)).items;
  } catch (error) {
    if (hasErrorCode(error, RuntimeErrorCodes.unknownKind) || isNotFound(error) || apiStatusCode(error) === 403) return [];
    throw error;
  }
}

/** Every object labelled as a component of the Operator, of every component kind. */
export async function listComponents(client: KubeClient, cache: ObjectReader, operatorName: string): Promise<Component[]> {
  const labelSelector = componentLabelKey(operatorName);
  const components: Component[] = [];
  for (const kind of componentKinds) {
    for (const object of await listOfKind(client, cache, kind, { labelSelector })) components.push({ kind, object });
  }
  return components;
}

/**
 * Whether any object carries the Operator's component label now, asked of the API server rather
 * than the cache: right after an uninstall the cache may still hold components that are gone, and
 * an Operator created from them would come back with nothing in it.
 */
export async function hasLiveComponent(client: KubeClient, operatorName: string): Promise<boolean> {
  const labelSelector = componentLabelKey(operatorName);
  for (const kind of componentKinds) {
    if ((await listFromServer(client, kind, { labelSelector, limit: 1 })).length > 0) return true;
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

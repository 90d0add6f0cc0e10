import { isSemanticallyEqual, isUnset } from '@olm/controller-runtime';
import type { KubeObject } from '@olm/core';

/**
 * Server-side apply fights other field managers only with `force`. Before applying, the fields
 * another manager owns with a value other than ours are taken out of what is applied, unless this
 * manager still owns them too (then the apply forces, to keep what it had). So `kubectl scale`,
 * `kubectl edit` or an HPA keep the fields they took, and the apply never fails on a conflict.
 */
export interface YieldedFields {
  /** The object to apply: the desired one without the fields left to others. */
  readonly object: KubeObject;
  /** `.spec.replicas (kubectl)`, one per field left to another manager. */
  readonly yielded: string[];
  /** Whether a field this manager owns conflicts: the apply then forces. */
  readonly force: boolean;
}

type Tree = Record<string, unknown>;
interface Owner {
  readonly manager: string;
  readonly tree: Tree;
}
interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsV1?: Tree;
}

export function yieldForeignFields(desired: KubeObject, live: KubeObject, fieldManager: string): YieldedFields {
  const entries = ((live.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? []).filter((entry) => !entry.subresource && isTree(entry.fieldsV1));
  const isOurs = (entry: ManagedFieldsEntry) => entry.manager === fieldManager && entry.operation === 'Apply';
  const others = entries.filter((entry) => !isOurs(entry)).map((entry) => ({ manager: entry.manager ?? '', tree: entry.fieldsV1! }));
  const ours = entries.find(isOurs)?.fieldsV1;
  const object = structuredClone(desired);
  const state = { yielded: [] as string[], force: false };
  if (others.length > 0) walkMap(object as unknown as Tree, live as unknown as Tree, others, ours, '', state);
  return { object, ...state };
}

function walkMap(desired: Tree, live: Tree | undefined, others: readonly Owner[], ours: Tree | undefined, path: string, state: { yielded: string[]; force: boolean }): void {
  for (const key of Object.keys(desired)) {
    const field = `f:${key}`;
    const owners = others.flatMap((owner) => (isTree(owner.tree[field]) ? [{ manager: owner.manager, tree: owner.tree[field] as Tree }] : []));
    if (owners.length === 0) continue;
    const value = desired[key];
    const liveValue = live?.[key];
    const ourNode = isTree(ours?.[field]) ? (ours![field] as Tree) : undefined;
    const fieldPath = `${path}.${key}`;
    if (isTree(value) && isTree(liveValue) && owners.some((owner) => hasChildren(owner.tree))) {
      walkMap(value, liveValue, owners, ourNode, fieldPath, state);
    } else if (Array.isArray(value) && Array.isArray(liveValue) && owners.some((owner) => Object.keys(owner.tree).some((item) => item.startsWith('k:')))) {
      walkKeyedList(value, liveValue, owners, ourNode, fieldPath, state);
    } else if (!isSemanticallyEqual(value, liveValue)) {
      // Only values conflict: a field others own with our value is shared, as the API server shares it.
      if (ourNode) state.force = true;
      else {
        delete desired[key];
        state.yielded.push(`${fieldPath} (${[...new Set(owners.map((owner) => owner.manager))].join(', ')})`);
      }
    }
  }
}

/** A list whose items are merged by key fields (`containers` by `name`): owned per item, as `k:{"name":"x"}`. */
function walkKeyedList(desired: unknown[], live: unknown[], others: readonly Owner[], ours: Tree | undefined, path: string, state: { yielded: string[]; force: boolean }): void {
  for (const item of desired) {
    if (!isTree(item)) continue;
    const owners: Owner[] = [];
    let key: Tree | undefined;
    for (const owner of others) {
      for (const [element, node] of Object.entries(owner.tree)) {
        const fields = keyFields(element);
        if (fields && isTree(node) && matches(item, fields)) {
          owners.push({ manager: owner.manager, tree: node });
          key = fields;
        }
      }
    }
    if (!key || owners.length === 0) continue;
    const keyOf = key;
    const liveItem = live.find((candidate) => isTree(candidate) && matches(candidate, keyOf)) as Tree | undefined;
    const ourEntry = Object.entries(ours ?? {}).find(([element]) => {
      const fields = keyFields(element);
      return fields !== undefined && matches(item, fields);
    });
    const label = Object.entries(keyOf).map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(',');
    walkMap(item, liveItem, owners, isTree(ourEntry?.[1]) ? (ourEntry[1] as Tree) : undefined, `${path}[${label}]`, state);
  }
}

function keyFields(element: string): Tree | undefined {
  if (!element.startsWith('k:')) return undefined;
  try {
    const parsed = JSON.parse(element.slice(2)) as unknown;
    return isTree(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function matches(item: Tree, key: Tree): boolean {
  return Object.entries(key).every(([name, value]) => isSemanticallyEqual(item[name], value));
}

function hasChildren(tree: Tree): boolean {
  return Object.keys(tree).some((key) => key !== '.');
}

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether the live object already holds every field of `desired` with its value (extra live fields,
 * such as defaults and other managers' fields, allowed): then applying would change nothing.
 */
export function isContainedIn(desired: unknown, live: unknown): boolean {
  if (isUnset(desired)) return true;
  if (Array.isArray(desired)) return Array.isArray(live) && live.length === desired.length && desired.every((item, index) => isContainedIn(item, live[index]));
  if (isTree(desired)) return isTree(live) && Object.keys(desired).every((key) => isContainedIn(desired[key], live[key]));
  return isSemanticallyEqual(desired, live);
}

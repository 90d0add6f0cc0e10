import { ApiError } from './errors.js';
import { deepClone, deepEqual, isJsonObject, nowTimestamp, type JsonObject, type KubeObject, type ManagedFieldsEntry } from './kube-object.js';

/**
 * Field ownership for server-side apply (`metadata.managedFields`, FieldsV1). A field set is a set of
 * paths; a path element is `f:<field>`, `k:<json keys>` (an item of an associative list), `v:<json>`
 * (an item of a set) or `i:<index>`. Lists without keys are atomic: the list is one leaf.
 */
export type ListKeys = ((fieldPath: readonly string[], items: readonly unknown[]) => { type: 'map'; keys: readonly string[] } | { type: 'set' } | undefined) & {
  /** Whether the object at this path is a map (its node is owned too, shown as `.`) rather than a struct. */
  readonly isMap?: (fieldPath: readonly string[]) => boolean;
};

const separator = '\u0000';
type FieldSet = Set<string>;

const ignoredMetadata = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName']);

/** The leaf paths (and associative-list items) set in `object`. */
export function fieldsOf(object: JsonObject, listKeys: ListKeys, options: { includeStatus?: boolean; onlyStatus?: boolean } = {}): FieldSet {
  const out: FieldSet = new Set();
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind' || value === undefined) continue;
    if (options.onlyStatus && key !== 'status') continue;
    if (key === 'status' && !options.includeStatus && !options.onlyStatus) continue;
    if (key === 'metadata' && isJsonObject(value)) {
      for (const [field, item] of Object.entries(value)) {
        if (ignoredMetadata.has(field) || item === undefined) continue;
        walk(item, ['f:metadata', `f:${field}`], ['metadata', field], listKeys, out);
      }
      continue;
    }
    walk(value, [`f:${key}`], [key], listKeys, out);
  }
  return out;
}

function walk(value: unknown, path: string[], names: string[], listKeys: ListKeys, out: FieldSet): void {
  if (isJsonObject(value) && Object.keys(value).length > 0) {
    if (listKeys.isMap?.(names)) out.add(path.join(separator));
    for (const [key, item] of Object.entries(value)) if (item !== undefined) walk(item, [...path, `f:${key}`], [...names, key], listKeys, out);
    return;
  }
  if (Array.isArray(value) && value.length > 0) {
    const kind = listKeys(names, value);
    if (kind?.type === 'map' && value.every(isJsonObject)) {
      for (const item of value as JsonObject[]) {
        const itemPath = [...path, itemElement(item, kind.keys)];
        out.add(itemPath.join(separator));
        for (const [key, child] of Object.entries(item)) if (child !== undefined) walk(child, [...itemPath, `f:${key}`], [...names, '[]', key], listKeys, out);
      }
      return;
    }
    if (kind?.type === 'set') {
      for (const item of value) out.add([...path, `v:${JSON.stringify(item)}`].join(separator));
      return;
    }
  }
  out.add(path.join(separator));
}

function itemElement(item: JsonObject, keys: readonly string[]): string {
  const selected: JsonObject = {};
  for (const key of [...keys].sort()) selected[key] = item[key];
  return `k:${JSON.stringify(selected)}`;
}

/** FieldsV1 tree → set. */
export function fieldSetFromTree(tree: unknown, prefix: string[] = [], out: FieldSet = new Set()): FieldSet {
  if (!isJsonObject(tree)) return out;
  const children = Object.keys(tree).filter((key) => key !== '.');
  if (prefix.length > 0 && (children.length === 0 || '.' in tree)) out.add(prefix.join(separator));
  for (const key of children) fieldSetFromTree(tree[key], [...prefix, key], out);
  return out;
}

/** Set → FieldsV1 tree. */
export function fieldSetToTree(set: FieldSet): JsonObject {
  const root: JsonObject = {};
  const paths = [...set].map((path) => path.split(separator));
  for (const path of paths) {
    let node = root;
    for (const element of path) {
      if (!isJsonObject(node[element])) node[element] = {};
      node = node[element] as JsonObject;
    }
  }
  // A node that is both in the set and has children carries `.`.
  for (const path of paths) {
    let node: JsonObject | undefined = root;
    for (const element of path) node = node?.[element] as JsonObject | undefined;
    if (node && !('.' in node) && Object.keys(node).length > 0) {
      // `.` comes first, as kube-apiserver sorts it.
      const children = Object.entries(node);
      for (const [key] of children) delete node[key];
      node['.'] = {};
      for (const [key, child] of children) node[key] = child;
    }
  }
  return root;
}

/** `.spec.containers[name="c"].image`, as in conflict messages. */
export function pathToString(path: string): string {
  return path
    .split(separator)
    .map((element) => {
      if (element.startsWith('f:')) return `.${element.slice(2)}`;
      if (element.startsWith('i:')) return `[${element.slice(2)}]`;
      if (element.startsWith('v:')) return `[=${element.slice(2)}]`;
      const keys = JSON.parse(element.slice(2)) as JsonObject;
      return `[${Object.entries(keys).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(',')}]`;
    })
    .join('');
}

type Location = { parent: JsonObject | unknown[]; key: string | number } | undefined;

function locate(object: unknown, path: string): { value: unknown; location: Location } {
  let current: unknown = object;
  let location: Location;
  for (const element of path.split(separator)) {
    if (element.startsWith('f:')) {
      if (!isJsonObject(current)) return { value: undefined, location: undefined };
      location = { parent: current, key: element.slice(2) };
      current = current[element.slice(2)];
    } else if (element.startsWith('k:') || element.startsWith('v:')) {
      if (!Array.isArray(current)) return { value: undefined, location: undefined };
      const wanted = JSON.parse(element.slice(2)) as unknown;
      const index = element.startsWith('k:')
        ? current.findIndex((item) => isJsonObject(item) && Object.entries(wanted as JsonObject).every(([key, value]) => deepEqual(item[key], value)))
        : current.findIndex((item) => deepEqual(item, wanted));
      if (index < 0) return { value: undefined, location: undefined };
      location = { parent: current, key: index };
      current = current[index];
    } else if (element.startsWith('i:')) {
      if (!Array.isArray(current)) return { value: undefined, location: undefined };
      location = { parent: current, key: Number(element.slice(2)) };
      current = current[Number(element.slice(2))];
    }
    if (current === undefined) return { value: undefined, location: undefined };
  }
  return { value: current, location };
}

function hasDescendant(set: FieldSet, path: string): boolean {
  const prefix = path + separator;
  for (const other of set) if (other.startsWith(prefix)) return true;
  return false;
}

function isItemPath(path: string): boolean {
  const last = path.split(separator).pop() ?? '';
  return last.startsWith('k:');
}

function removePath(object: JsonObject, path: string): void {
  const { location } = locate(object, path);
  if (!location) return;
  if (Array.isArray(location.parent)) location.parent.splice(location.key as number, 1);
  else delete (location.parent as JsonObject)[location.key as string];
}

/** Deep merge of an applied configuration into the live object (maps by key, associative lists by item key, sets by value). */
export function mergeApplied(live: unknown, applied: unknown, listKeys: ListKeys, names: string[] = []): unknown {
  if (isJsonObject(applied)) {
    const result: JsonObject = isJsonObject(live) ? { ...live } : {};
    for (const [key, value] of Object.entries(applied)) {
      if (value === undefined) continue;
      result[key] = mergeApplied(result[key], value, listKeys, [...names, key]);
    }
    return result;
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const kind = listKeys(names, [...live, ...applied]);
    if (kind?.type === 'set') return [...live, ...applied.filter((item) => !live.some((existing) => deepEqual(existing, item)))];
    if (kind?.type === 'map' && applied.every(isJsonObject) && live.every(isJsonObject)) {
      const out = [...live] as JsonObject[];
      for (const item of applied as JsonObject[]) {
        const index = out.findIndex((existing) => kind.keys.every((key) => deepEqual(existing[key], item[key])));
        if (index >= 0) out[index] = mergeApplied(out[index], item, listKeys, [...names, '[]']) as JsonObject;
        else out.push(deepClone(item));
      }
      return out;
    }
  }
  return deepClone(applied);
}

function managerLabel(entry: ManagedFieldsEntry): string {
  const name = JSON.stringify(entry.manager ?? '');
  const withSubresource = entry.subresource ? `${name} with subresource ${JSON.stringify(entry.subresource)}` : name;
  // Manager identifiers never include the time (nor, for appliers, the apiVersion).
  return entry.operation === 'Update' ? `${withSubresource} using ${entry.apiVersion ?? ''}` : withSubresource;
}

function sameEntry(entry: ManagedFieldsEntry, manager: string, operation: string, subresource: string | undefined): boolean {
  return entry.manager === manager && entry.operation === operation && (entry.subresource ?? '') === (subresource ?? '');
}

function withSet(entry: ManagedFieldsEntry, set: FieldSet): ManagedFieldsEntry {
  return { ...entry, fieldsType: 'FieldsV1', fieldsV1: fieldSetToTree(set) };
}

export interface ApplyRequest {
  readonly live: KubeObject | undefined;
  readonly applied: KubeObject;
  readonly manager: string;
  readonly force: boolean;
  readonly apiVersion: string;
  readonly listKeys: ListKeys;
  readonly subresource?: string;
}

/** Server-side apply: merge, detect conflicts with other managers, drop fields this manager stopped applying. */
export function serverSideApply(request: ApplyRequest): KubeObject {
  const { live, applied, manager, listKeys, subresource } = request;
  const onlyStatus = subresource === 'status';
  const appliedSet = fieldsOf(applied, listKeys, { includeStatus: true, onlyStatus });
  const entries = (live?.metadata.managedFields ?? []).map((entry) => ({ entry, set: fieldSetFromTree(entry.fieldsV1) }));
  const conflicts: { manager: ManagedFieldsEntry; path: string }[] = [];
  for (const other of entries) {
    if (sameEntry(other.entry, manager, 'Apply', subresource)) continue;
    for (const path of appliedSet) {
      // Only values conflict: nodes with owned children (list items, maps) are shared freely.
      if (!other.set.has(path) || isItemPath(path) || hasDescendant(appliedSet, path)) continue;
      if (!deepEqual(locate(live, path).value, locate(applied, path).value)) conflicts.push({ manager: other.entry, path });
    }
  }
  if (conflicts.length > 0 && !request.force) throw conflictError(conflicts);
  for (const { manager: owner, path } of conflicts) entries.find((other) => other.entry === owner)?.set.delete(path);

  const base = deepClone(live ?? { metadata: {} }) as KubeObject;
  const merged = mergeApplied(base, stripIdentity(applied), listKeys) as KubeObject;
  const previous = entries.find((other) => sameEntry(other.entry, manager, 'Apply', subresource))?.set ?? new Set<string>();
  const ownedByOthers = new Set<string>();
  for (const other of entries) if (!sameEntry(other.entry, manager, 'Apply', subresource)) for (const path of other.set) ownedByOthers.add(path);
  const removed = [...previous].filter((path) => !appliedSet.has(path) && !ownedByOthers.has(path));
  // Deepest first, so removing an item does not shift the location of a later one.
  removed.sort((left, right) => right.split(separator).length - left.split(separator).length);
  for (const path of removed) {
    const hasOwnedDescendant = [...ownedByOthers, ...appliedSet].some((other) => other.startsWith(path + separator));
    if (!hasOwnedDescendant) removePath(merged, path);
  }

  const time = nowTimestamp();
  const managedFields: ManagedFieldsEntry[] = [];
  for (const other of entries) {
    if (sameEntry(other.entry, manager, 'Apply', subresource)) continue;
    if (other.set.size > 0) managedFields.push(withSet(other.entry, other.set));
  }
  const own: ManagedFieldsEntry = { manager, operation: 'Apply', apiVersion: request.apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: fieldSetToTree(appliedSet) };
  if (subresource) own.subresource = subresource;
  managedFields.push(own);
  merged.metadata = { ...merged.metadata, managedFields };
  return merged;
}

function stripIdentity(applied: KubeObject): KubeObject {
  const copy = deepClone(applied);
  const metadata: JsonObject = { ...copy.metadata };
  for (const key of ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'managedFields']) delete metadata[key];
  copy.metadata = metadata;
  return copy;
}

function conflictError(conflicts: { manager: ManagedFieldsEntry; path: string }[]): ApiError {
  let message: string;
  if (conflicts.length === 1) {
    const [only] = conflicts;
    message = `Apply failed with 1 conflict: conflict with ${managerLabel(only?.manager ?? {})}: ${pathToString(only?.path ?? '')}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const { manager, path } of conflicts) {
      const label = managerLabel(manager);
      byManager.set(label, [...(byManager.get(label) ?? []), pathToString(path)]);
    }
    const lines: string[] = [];
    for (const label of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${label}:`);
      for (const path of byManager.get(label) ?? []) lines.push(`- ${path}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, {
    causes: conflicts.map(({ manager, path }) => ({ reason: 'FieldManagerConflict', message: `conflict with ${managerLabel(manager)}`, field: pathToString(path) })),
  });
}

/**
 * Records a non-apply write (create, update, patch) by `manager`: it takes every field it changed,
 * and fields that disappeared are dropped from every manager.
 */
export function recordUpdate(options: {
  previous: KubeObject | undefined;
  next: KubeObject;
  manager: string;
  apiVersion: string;
  listKeys: ListKeys;
  subresource?: string;
}): ManagedFieldsEntry[] {
  const { previous, next, manager, listKeys, subresource } = options;
  const scope = subresource === 'status' ? { onlyStatus: true } : { includeStatus: true };
  const nextSet = fieldsOf(next, listKeys, scope);
  const previousSet = previous ? fieldsOf(previous, listKeys, scope) : new Set<string>();
  const changed = new Set<string>();
  for (const path of nextSet) if (!previousSet.has(path) || !deepEqual(locate(previous, path).value, locate(next, path).value)) changed.add(path);
  const gone = [...previousSet].filter((path) => !nextSet.has(path));
  const entries = (previous?.metadata.managedFields ?? next.metadata.managedFields ?? []).map((entry) => ({ entry, set: fieldSetFromTree(entry.fieldsV1) }));
  if (changed.size === 0 && gone.length === 0) return previous?.metadata.managedFields ?? [];
  const out: ManagedFieldsEntry[] = [];
  let own: Set<string> | undefined;
  let ownEntry: ManagedFieldsEntry | undefined;
  for (const { entry, set } of entries) {
    for (const path of gone) set.delete(path);
    if (sameEntry(entry, manager, 'Update', subresource)) {
      own = set;
      ownEntry = entry;
      continue;
    }
    for (const path of changed) set.delete(path);
    if (set.size > 0) out.push(withSet(entry, set));
  }
  own ??= new Set();
  for (const path of changed) own.add(path);
  const entry: ManagedFieldsEntry = { ...(ownEntry ?? {}), manager, operation: 'Update', apiVersion: options.apiVersion, time: nowTimestamp(), fieldsType: 'FieldsV1', fieldsV1: fieldSetToTree(own) };
  if (subresource) entry.subresource = subresource;
  if (own.size > 0) out.push(entry);
  return out;
}

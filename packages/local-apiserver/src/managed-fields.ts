import { StatusError } from './errors.js';
import { deepClone, deepEqual, isJsonObject, nowTimestamp, ownField, setField, type JsonObject, type KubeObject, type ManagedFieldsEntry } from './kube-object.js';

/**
 * Field ownership for server-side apply (`metadata.managedFields`, FieldsV1). A field set is a set of
 * paths; a path element is `f:<field>`, `k:<json keys>` (an item of an associative list), `v:<json>`
 * (an item of a set) or `i:<index>`. Lists without keys are atomic: the list is one leaf.
 */
/** How the items of a list are identified: by key fields (a missing key field takes its default), or by value. */
export type ListKind = { type: 'map'; keys: readonly string[]; defaults?: Readonly<Record<string, unknown>> } | { type: 'set' };

export type ListKeys = ((fieldPath: readonly string[], items: readonly unknown[]) => ListKind | undefined) & {
  /** Whether the object at this path is a map (its node is owned too, shown as `.`) rather than a struct. */
  readonly isMap?: (fieldPath: readonly string[]) => boolean;
};

const separator = '\u0000';
type FieldSet = Set<string>;
/** Each path of a field set with the value found there. */
type FieldValues = Map<string, unknown>;

const ignoredMetadata = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName']);

interface FieldScope {
  includeStatus?: boolean;
  onlyStatus?: boolean;
}

/** The leaf paths (and associative-list items) set in `object`. */
export function fieldsOf(object: JsonObject, listKeys: ListKeys, options: FieldScope = {}): FieldSet {
  return new Set(fieldValues(object, listKeys, options).keys());
}

/** Like `fieldsOf`, with the value at each path (what a change is detected on). */
function fieldValues(object: JsonObject, listKeys: ListKeys, options: FieldScope): FieldValues {
  const out: FieldValues = new Map();
  const names: string[] = [];
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (key === 'apiVersion' || key === 'kind' || value === undefined) continue;
    if (options.onlyStatus && key !== 'status') continue;
    if (key === 'status' && !options.includeStatus && !options.onlyStatus) continue;
    if (key === 'metadata' && isJsonObject(value)) {
      names.push('metadata');
      for (const field of Object.keys(value)) {
        const item = value[field];
        if (ignoredMetadata.has(field) || item === undefined) continue;
        names.push(field);
        collect(item, `f:metadata${separator}f:${field}`, names, listKeys, out);
        names.pop();
      }
      names.pop();
      continue;
    }
    names.push(key);
    collect(value, `f:${key}`, names, listKeys, out);
    names.pop();
  }
  return out;
}

/** Walks `value` at `path` (`names` is the field path, `[]` for a list item; kept as a stack). */
function collect(value: unknown, path: string, names: string[], listKeys: ListKeys, out: FieldValues): void {
  if (isJsonObject(value)) {
    const keys = Object.keys(value);
    if (keys.length > 0) {
      if (listKeys.isMap?.(names)) out.set(path, value);
      for (const key of keys) {
        const item = value[key];
        if (item === undefined) continue;
        names.push(key);
        collect(item, `${path}${separator}f:${key}`, names, listKeys, out);
        names.pop();
      }
      return;
    }
  } else if (Array.isArray(value) && value.length > 0) {
    const kind = listKeys(names, value);
    if (kind?.type === 'map' && value.every(isJsonObject)) {
      names.push('[]');
      for (const item of value as JsonObject[]) {
        const itemPath = `${path}${separator}${itemElement(item, kind)}`;
        // A duplicate key is invalid anyway; the first item is the one found by that key.
        if (out.has(itemPath)) continue;
        out.set(itemPath, item);
        for (const key of Object.keys(item)) {
          const child = item[key];
          if (child === undefined) continue;
          names.push(key);
          collect(child, `${itemPath}${separator}f:${key}`, names, listKeys, out);
          names.pop();
        }
      }
      names.pop();
      return;
    }
    if (kind?.type === 'set') {
      for (const item of value) out.set(`${path}${separator}v:${JSON.stringify(item)}`, item);
      return;
    }
  }
  out.set(path, value);
}

/** The key fields of an associative-list item, sorted by name, a missing one taking its default. */
function itemKey(item: JsonObject, kind: Extract<ListKind, { type: 'map' }>): JsonObject {
  const key: JsonObject = {};
  const names = kind.keys.length === 1 ? kind.keys : [...kind.keys].sort();
  for (const name of names) {
    const value = item[name] ?? kind.defaults?.[name];
    if (value !== undefined) key[name] = value;
  }
  return key;
}

function itemElement(item: JsonObject, kind: Extract<ListKind, { type: 'map' }>): string {
  return `k:${JSON.stringify(itemKey(item, kind))}`;
}

/** Whether `item` is the one `key` (an `itemKey`) names: every key field equal, a missing one taking its default. */
function sameItem(item: JsonObject, key: JsonObject, kind: Extract<ListKind, { type: 'map' }>): boolean {
  for (const name of kind.keys) if (!deepEqual(item[name] ?? kind.defaults?.[name], key[name])) return false;
  return true;
}

/** FieldsV1 tree → set. */
export function fieldSetFromTree(tree: unknown, prefix = '', out: FieldSet = new Set()): FieldSet {
  if (!isJsonObject(tree)) return out;
  let hasChildren = false;
  for (const key in tree) {
    if (key !== '.') {
      hasChildren = true;
      break;
    }
  }
  if (prefix !== '' && (!hasChildren || '.' in tree)) out.add(prefix);
  for (const key in tree) if (key !== '.') fieldSetFromTree(tree[key], prefix === '' ? key : `${prefix}${separator}${key}`, out);
  return out;
}

/** Set → FieldsV1 tree. */
export function fieldSetToTree(set: FieldSet): JsonObject {
  const root: JsonObject = {};
  // Nodes given a child so far (asking an object with thousands of keys whether it is empty costs them all).
  const parents = new WeakSet<JsonObject>();
  for (const path of set) {
    let node = root;
    let start = 0;
    while (start <= path.length) {
      let end = path.indexOf(separator, start);
      if (end < 0) end = path.length;
      const element = path.slice(start, end);
      let child = node[element] as JsonObject | undefined;
      if (child === undefined) {
        // A node that is in the set and has children carries `.`, first, as kube-apiserver sorts it.
        if (node !== root && !parents.has(node) && set.has(path.slice(0, start - 1))) node['.'] = {};
        parents.add(node);
        child = {};
        node[element] = child;
      }
      node = child;
      start = end + 1;
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

function locate(object: unknown, path: string, listKeys: ListKeys): { value: unknown; location: Location } {
  let current: unknown = object;
  let location: Location;
  const names: string[] = [];
  for (const element of path.split(separator)) {
    if (element.startsWith('f:')) {
      if (!isJsonObject(current)) return { value: undefined, location: undefined };
      location = { parent: current, key: element.slice(2) };
      current = ownField(current, element.slice(2));
      names.push(element.slice(2));
    } else if (element.startsWith('k:') || element.startsWith('v:')) {
      if (!Array.isArray(current)) return { value: undefined, location: undefined };
      const wanted = JSON.parse(element.slice(2)) as unknown;
      const kind = element.startsWith('k:') ? listKeys(names, current) : undefined;
      // An item matches the key fields the element names (a missing one taking its default).
      const defaults = kind?.type === 'map' ? kind.defaults : undefined;
      const index = element.startsWith('k:')
        ? current.findIndex((item) => isJsonObject(item) && Object.entries(wanted as JsonObject).every(([key, value]) => deepEqual(item[key] ?? defaults?.[key], value)))
        : current.findIndex((item) => deepEqual(item, wanted));
      if (index < 0) return { value: undefined, location: undefined };
      location = { parent: current, key: index };
      current = current[index];
      names.push('[]');
    } else if (element.startsWith('i:')) {
      if (!Array.isArray(current)) return { value: undefined, location: undefined };
      location = { parent: current, key: Number(element.slice(2)) };
      current = current[Number(element.slice(2))];
      names.push('[]');
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
  const last = path.slice(path.lastIndexOf(separator) + 1);
  return last.startsWith('k:');
}

/** `…/k:{"port":80,…}/f:port`: a key field of a list item, which stays as long as its item does. */
function isItemKeyField(path: string): boolean {
  const elements = path.split(separator);
  const field = elements[elements.length - 1] ?? '';
  const parent = elements[elements.length - 2] ?? '';
  if (!field.startsWith('f:') || !parent.startsWith('k:')) return false;
  return field.slice(2) in (JSON.parse(parent.slice(2)) as JsonObject);
}

function removePath(object: JsonObject, path: string, listKeys: ListKeys): void {
  const { location } = locate(object, path, listKeys);
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
      setField(result, key, mergeApplied(ownField(result, key), value, listKeys, [...names, key]));
    }
    return result;
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const kind = listKeys(names, [...live, ...applied]);
    if (kind?.type === 'set') return [...live, ...applied.filter((item) => !live.some((existing) => deepEqual(existing, item)))];
    if (kind?.type === 'map' && applied.every(isJsonObject) && live.every(isJsonObject)) {
      const out = [...live] as JsonObject[];
      for (const item of applied as JsonObject[]) {
        const key = itemKey(item, kind);
        const index = out.findIndex((existing) => sameItem(existing, key, kind));
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
  const appliedValues = fieldValues(applied, listKeys, { includeStatus: true, onlyStatus });
  const appliedSet = new Set(appliedValues.keys());
  const entries = (live?.metadata.managedFields ?? []).map((entry) => ({ entry, set: fieldSetFromTree(entry.fieldsV1) }));
  const conflicts: { manager: ManagedFieldsEntry; path: string }[] = [];
  for (const other of entries) {
    if (sameEntry(other.entry, manager, 'Apply', subresource)) continue;
    for (const path of appliedSet) {
      // Only values conflict: nodes with owned children (list items, maps) are shared freely.
      if (!other.set.has(path) || isItemPath(path) || hasDescendant(appliedSet, path)) continue;
      if (!deepEqual(locate(live, path, listKeys).value, appliedValues.get(path))) conflicts.push({ manager: other.entry, path });
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
  // Deepest first: an item's own fields go before the item, which is still found by its key fields.
  removed.sort((left, right) => right.split(separator).length - left.split(separator).length);
  const kept = [...ownedByOthers, ...appliedSet];
  for (const path of removed) {
    // Key fields go with their item: an item that stays (another manager owns part of it) keeps them.
    if (isItemKeyField(path)) continue;
    const hasOwnedDescendant = kept.some((other) => other.startsWith(path + separator));
    if (!hasOwnedDescendant) removePath(merged, path, listKeys);
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

function conflictError(conflicts: { manager: ManagedFieldsEntry; path: string }[]): StatusError {
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
  return new StatusError(409, 'Conflict', message, {
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
  const nextValues = fieldValues(next, listKeys, scope);
  const previousValues = previous ? fieldValues(previous, listKeys, scope) : new Map<string, unknown>();
  const changed: string[] = [];
  for (const [path, value] of nextValues) if (!previousValues.has(path) || !deepEqual(previousValues.get(path), value)) changed.push(path);
  const gone: string[] = [];
  for (const path of previousValues.keys()) if (!nextValues.has(path)) gone.push(path);
  if (changed.length === 0 && gone.length === 0) return previous?.metadata.managedFields ?? [];
  const entries = previous?.metadata.managedFields ?? next.metadata.managedFields ?? [];
  const out: ManagedFieldsEntry[] = [];
  let own: Set<string> | undefined;
  let ownEntry: ManagedFieldsEntry | undefined;
  let ownChanged = false;
  for (const entry of entries) {
    const set = fieldSetFromTree(entry.fieldsV1);
    let touched = false;
    for (const path of gone) touched = set.delete(path) || touched;
    if (sameEntry(entry, manager, 'Update', subresource)) {
      own = set;
      ownEntry = entry;
      ownChanged = touched;
      continue;
    }
    for (const path of changed) touched = set.delete(path) || touched;
    if (set.size === 0) continue;
    // An entry that lost nothing is kept as it is (its tree is not rebuilt).
    out.push(touched ? withSet(entry, set) : entry);
  }
  own ??= new Set();
  for (const path of changed) {
    if (own.has(path)) continue;
    own.add(path);
    ownChanged = true;
  }
  const fieldsV1 = ownEntry?.fieldsV1 !== undefined && !ownChanged ? ownEntry.fieldsV1 : fieldSetToTree(own);
  const entry: ManagedFieldsEntry = { ...(ownEntry ?? {}), manager, operation: 'Update', apiVersion: options.apiVersion, time: nowTimestamp(), fieldsType: 'FieldsV1', fieldsV1 };
  if (subresource) entry.subresource = subresource;
  if (own.size > 0) out.push(entry);
  return out;
}

/**
 * managedFields in the order kube-apiserver stores them: by operation (`Apply` before `Update`), then
 * time (whole seconds), manager, apiVersion and subresource, whatever order the writes came in.
 */
export function sortManagedFields(entries: readonly ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  const seconds = (entry: ManagedFieldsEntry): number => {
    const parsed = typeof entry.time === 'string' ? Date.parse(entry.time) : Number.NaN;
    return Number.isNaN(parsed) ? 0 : Math.floor(parsed / 1000);
  };
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const byString = (left: unknown, right: unknown): number => (text(left) < text(right) ? -1 : text(left) > text(right) ? 1 : 0);
  return [...entries].sort(
    (left, right) =>
      byString(left.operation, right.operation) ||
      seconds(left) - seconds(right) ||
      byString(left.manager, right.manager) ||
      byString(left.apiVersion, right.apiVersion) ||
      byString(left.subresource, right.subresource),
  );
}

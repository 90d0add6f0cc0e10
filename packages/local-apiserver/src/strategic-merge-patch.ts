import { badRequest } from './errors.js';
import { deepClone, isJsonObject, ownField, setField, type JsonObject } from './kube-object.js';

/**
 * Strategic merge patch for built-in kinds: lists with a merge key are merged item by item
 * (containers, env, volumes by `name`; container ports by `containerPort`; service ports by `port`;
 * volumeMounts by `mountPath`; …), `finalizers` merge as a set, other lists are replaced.
 * Directives: `$patch: replace|delete|merge`, `$retainKeys`, `$setElementOrder/<list>`,
 * `$deleteFromPrimitiveList/<list>`.
 */
const mergeKeys: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  imagePullSecrets: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  conditions: 'type',
  ownerReferences: 'uid',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  secrets: 'name',
  resourceClaims: 'name',
};

const primitiveMergeLists = new Set(['finalizers']);

/** The merge key of list `field` given its items (`ports` depends on whether they are container or service ports). */
export function strategicMergeKey(field: string, items: readonly unknown[]): string | undefined {
  if (field === 'ports') {
    return items.some((item) => isJsonObject(item) && 'containerPort' in item) ? 'containerPort' : 'port';
  }
  return mergeKeys[field];
}

export function isPrimitiveMergeList(field: string): boolean {
  return primitiveMergeLists.has(field);
}

export function applyStrategicMergePatch(original: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) throw badRequest('the body of the request was in an unknown format - a strategic merge patch must be an object');
  return mergeObject(isJsonObject(original) ? original : {}, patch);
}

function mergeObject(original: JsonObject, patch: JsonObject): JsonObject | undefined {
  const directive = patch['$patch'];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const replaced = deepClone(patch);
    delete replaced['$patch'];
    return stripDirectives(replaced) as JsonObject;
  }
  const result: JsonObject = { ...original };
  const retainKeys = patch['$retainKeys'];
  if (Array.isArray(retainKeys)) {
    const retained = new Set(retainKeys);
    for (const key of Object.keys(result)) if (!retained.has(key)) delete result[key];
  }
  const orders: [string, unknown[]][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith('$setElementOrder/')) {
      if (Array.isArray(value)) orders.push([key.slice('$setElementOrder/'.length), value]);
      continue;
    }
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = ownField(result, field);
      if (Array.isArray(current) && Array.isArray(value)) {
        const deleted = new Set(value.map(identity));
        setField(result, field, current.filter((item) => !deleted.has(identity(item))));
      }
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const current = ownField(result, key);
    if (isJsonObject(value)) {
      const merged = mergeObject(isJsonObject(current) ? current : {}, value);
      if (merged === undefined) delete result[key];
      else setField(result, key, merged);
    } else if (Array.isArray(value)) {
      setField(result, key, mergeList(key, Array.isArray(current) ? current : [], value));
    } else setField(result, key, value);
  }
  for (const [field, order] of orders) {
    const current = ownField(result, field);
    if (Array.isArray(current)) setField(result, field, applyOrder(field, current, order));
  }
  return result;
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => !(isJsonObject(item) && item['$patch'] !== undefined && Object.keys(item).length === 1)).map(stripDirectives);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) if (!key.startsWith('$')) setField(out, key, stripDirectives(item));
  return out;
}

function mergeList(field: string, original: unknown[], patch: unknown[]): unknown[] {
  if (patch.some((item) => isJsonObject(item) && item['$patch'] === 'replace')) {
    return patch.filter((item) => !(isJsonObject(item) && item['$patch'] === 'replace')).map(stripDirectives);
  }
  if (isPrimitiveMergeList(field)) {
    const out = [...original];
    const present = new Set(original.map(identity));
    for (const item of patch) {
      const id = identity(item);
      if (!present.has(id)) out.push(item);
      present.add(id);
    }
    return out;
  }
  const key = strategicMergeKey(field, [...original, ...patch]);
  if (key === undefined || !patch.every(isJsonObject)) return patch.map(stripDirectives);
  // Items by merge key value, so that a long list costs one lookup per patch item, not a scan.
  const out: (unknown | typeof removed)[] = [...original];
  const positions = new Map<string, number>();
  out.forEach((item, index) => {
    if (isJsonObject(item) && !positions.has(identity(item[key]))) positions.set(identity(item[key]), index);
  });
  for (const item of patch as JsonObject[]) {
    const id = identity(item[key]);
    const index = positions.get(id);
    if (item['$patch'] === 'delete') {
      if (index !== undefined) {
        out[index] = removed;
        positions.delete(id);
      }
      continue;
    }
    if (index !== undefined) {
      const merged = mergeObject(out[index] as JsonObject, item);
      if (merged !== undefined) out[index] = merged;
      else {
        out[index] = removed;
        positions.delete(id);
      }
    } else {
      positions.set(id, out.length);
      out.push(stripDirectives(item));
    }
  }
  return out.filter((item) => item !== removed);
}

const removed = Symbol('removed');

/** A key under which equal JSON values meet (object keys in order, as the items were decoded). */
function identity(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

function applyOrder(field: string, list: unknown[], order: unknown[]): unknown[] {
  const key = strategicMergeKey(field, list);
  const idOf = (item: unknown): string => identity(key !== undefined && isJsonObject(item) ? item[key] : item);
  const rank = new Map<string, number>();
  order.forEach((entry, index) => {
    const id = idOf(entry);
    if (!rank.has(id)) rank.set(id, index);
  });
  const ordered = list.filter((item) => rank.has(idOf(item))).sort((left, right) => (rank.get(idOf(left)) ?? 0) - (rank.get(idOf(right)) ?? 0));
  return [...ordered, ...list.filter((item) => !rank.has(idOf(item)))];
}

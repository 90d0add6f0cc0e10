import { badRequest } from './errors.js';
import { deepClone, deepEqual, isJsonObject, type JsonObject } from './kube-object.js';

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
    for (const key of Object.keys(result)) if (!retainKeys.includes(key)) delete result[key];
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
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value)) result[field] = current.filter((item) => !value.some((v) => deepEqual(v, item)));
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const current = result[key];
    if (isJsonObject(value)) {
      const merged = mergeObject(isJsonObject(current) ? current : {}, value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = mergeList(key, Array.isArray(current) ? current : [], value);
    } else result[key] = value;
  }
  for (const [field, order] of orders) {
    const current = result[field];
    if (Array.isArray(current)) result[field] = applyOrder(field, current, order);
  }
  return result;
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => !(isJsonObject(item) && item['$patch'] !== undefined && Object.keys(item).length === 1)).map(stripDirectives);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) if (!key.startsWith('$')) out[key] = stripDirectives(item);
  return out;
}

function mergeList(field: string, original: unknown[], patch: unknown[]): unknown[] {
  if (patch.some((item) => isJsonObject(item) && item['$patch'] === 'replace')) {
    return patch.filter((item) => !(isJsonObject(item) && item['$patch'] === 'replace')).map(stripDirectives);
  }
  if (isPrimitiveMergeList(field)) {
    const out = [...original];
    for (const item of patch) if (!out.some((existing) => deepEqual(existing, item))) out.push(item);
    return out;
  }
  const key = strategicMergeKey(field, [...original, ...patch]);
  if (key === undefined || !patch.every(isJsonObject)) return patch.map(stripDirectives);
  const out = original.map((item) => item);
  for (const item of patch as JsonObject[]) {
    const index = out.findIndex((existing) => isJsonObject(existing) && deepEqual(existing[key], item[key]));
    if (item['$patch'] === 'delete') {
      if (index >= 0) out.splice(index, 1);
      continue;
    }
    if (index >= 0) {
      const merged = mergeObject(out[index] as JsonObject, item);
      if (merged === undefined) out.splice(index, 1);
      else out[index] = merged;
    } else out.push(stripDirectives(item));
  }
  return out;
}

function applyOrder(field: string, list: unknown[], order: unknown[]): unknown[] {
  const key = strategicMergeKey(field, list);
  const position = (item: unknown): number =>
    order.findIndex((entry) => (key !== undefined && isJsonObject(entry) && isJsonObject(item) ? deepEqual(entry[key], item[key]) : deepEqual(entry, item)));
  const ordered = list.filter((item) => position(item) >= 0).sort((left, right) => position(left) - position(right));
  return [...ordered, ...list.filter((item) => position(item) < 0)];
}

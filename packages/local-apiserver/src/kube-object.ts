import { formatTime, nowTime } from '@olm/go-format';

/** Plain JSON objects as they travel through the server. */
export type JsonObject = Record<string, unknown>;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: JsonObject;
  subresource?: string;
}

export interface KubeObject extends JsonObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/*
 * Field names come from clients, and Kubernetes allows `__proto__`, `constructor` or `prototype` as
 * map keys (ConfigMap data, labels). As plain properties they are harmless; the danger is reading
 * one that is not an own property (which yields a prototype) and assigning `__proto__` (which sets
 * the prototype instead of a field). Code that handles client keys uses these two.
 */

/** A field's value if the object has it as its own, never an inherited one. */
export function ownField(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Sets an own field, `__proto__` included (as JSON.parse makes it). */
export function setField(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** Deep copy of a JSON value (faster than structuredClone for the small objects stored here). */
export function deepClone<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => deepClone(item) as unknown) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) setField(out, key, deepClone(item));
  }
  return out as T;
}

export function deepEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== typeof right || left === null || right === null || typeof left !== 'object') return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left)) {
    const other = right as unknown[];
    if (left.length !== other.length) return false;
    for (let index = 0; index < left.length; index++) if (!deepEqual(left[index], other[index])) return false;
    return true;
  }
  // Keys whose value is undefined count as absent (JSON drops them).
  const leftObject = left as JsonObject;
  const rightObject = right as JsonObject;
  let leftCount = 0;
  for (const key in leftObject) {
    const value = leftObject[key];
    if (value === undefined) continue;
    leftCount++;
    if (!deepEqual(value, ownField(rightObject, key))) return false;
  }
  let rightCount = 0;
  for (const key in rightObject) if (rightObject[key] !== undefined) rightCount++;
  return leftCount === rightCount;
}

/** `metav1.Time` of `date`, or of now (formatted once per second: it costs more than the rest of a small write). */
export function nowTimestamp(date?: Date): string {
  return date === undefined ? nowTime() : formatTime(date);
}

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

/** Deep copy of a JSON value (faster than structuredClone for the small objects stored here). */
export function deepClone<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => deepClone(item) as unknown) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) out[key] = deepClone(item);
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
    if (!deepEqual(value, rightObject[key])) return false;
  }
  let rightCount = 0;
  for (const key in rightObject) if (rightObject[key] !== undefined) rightCount++;
  return leftCount === rightCount;
}

/** `metav1.Time` of `date`, or of now (formatted once per second: it costs more than the rest of a small write). */
export function nowTimestamp(date?: Date): string {
  return date === undefined ? nowTime() : formatTime(date);
}

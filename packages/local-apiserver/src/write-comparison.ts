import { deepEqual, isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';
import type { ResourceType } from './resource-type.js';

/** `left` and `right` are equal but for `skipped` keys (undefined values count as absent). */
function equalExcept(left: JsonObject, right: JsonObject, skipped: (key: string) => boolean): boolean {
  let count = 0;
  for (const key in left) {
    if (skipped(key) || left[key] === undefined) continue;
    count++;
    if (!deepEqual(left[key], right[key])) return false;
  }
  for (const key in right) if (!skipped(key) && right[key] !== undefined) count--;
  return count === 0;
}

/**
 * Whether a write changes nothing but the resourceVersion and managedFields times (then it is a no-op, as
 * kube-apiserver skips it): entries are matched whatever their order, since a manager whose write changed
 * nothing still gets a new time, which can move its entry.
 */
export function sameApartFromVolatile(left: KubeObject, right: KubeObject): boolean {
  if (!equalExcept(left, right, (key) => key === 'metadata')) return false;
  if (!equalExcept(left.metadata, right.metadata, (key) => key === 'resourceVersion' || key === 'managedFields')) return false;
  const leftManaged = left.metadata.managedFields;
  const rightManaged = right.metadata.managedFields;
  if (!Array.isArray(leftManaged) || !Array.isArray(rightManaged)) return deepEqual(leftManaged, rightManaged);
  if (leftManaged.length !== rightManaged.length) return false;
  const unmatched = [...rightManaged];
  return leftManaged.every((entry) => {
    const index = unmatched.findIndex((other) => (isJsonObject(entry) && isJsonObject(other) ? equalExcept(entry as JsonObject, other as JsonObject, (key) => key === 'time') : deepEqual(entry, other)));
    if (index < 0) return false;
    unmatched.splice(index, 1);
    return true;
  });
}

/** Whether anything outside `metadata` (and `status`, with a status subresource) changed. */
export function specChanged(type: ResourceType, before: KubeObject, after: KubeObject): boolean {
  const strip = (object: KubeObject): JsonObject => {
    const copy: JsonObject = { ...object };
    delete copy['metadata'];
    delete copy['apiVersion'];
    delete copy['kind'];
    if (type.statusSubresource) delete copy['status'];
    return copy;
  };
  return !deepEqual(strip(before), strip(after));
}

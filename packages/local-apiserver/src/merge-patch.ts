import { deepClone, isJsonObject, ownField, setField } from './kube-object.js';

/** RFC 7386 JSON Merge Patch (`application/merge-patch+json`): objects merge, null deletes, the rest replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return deepClone(patch);
  // Spreading copies `__proto__` as an own field; reads and writes below touch own fields only.
  const result: Record<string, unknown> = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setField(result, key, applyMergePatch(ownField(result, key), value));
  }
  return result;
}

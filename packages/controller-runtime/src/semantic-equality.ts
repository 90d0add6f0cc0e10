/**
 * Semantic equality of Kubernetes objects as plain JSON, for comparing desired with live state.
 *
 * A real API server returns map keys sorted and struct fields in Go's declaration order, whatever
 * order a client sent them in, so two JSON texts of one object rarely match byte for byte. Here:
 * - key order never matters;
 * - a field that is absent, `undefined` or `null` is unset (Kubernetes decodes `null` as unset);
 * - an empty list and an empty map (or one whose fields are all unset) also count as unset, as
 *   apimachinery's `equality.Semantic` treats nil and empty slices and maps alike and the server's
 *   `omitempty` serialisation drops them; so does a struct like `emptyDir: {}`, which no comparison
 *   of OLM's needs to tell from an absent one;
 * - list order matters; `0`, `false` and `""` are values, not unset.
 * Fields the server defaults are not known here: compare only the fields you own, or start the
 * desired object from the live one (as `updateObject` mutations do).
 */

/** Whether two JSON values are the same object for Kubernetes (see the file comment for the rules). */
export function isSemanticallyEqual(left: unknown, right: unknown): boolean {
  const leftUnset = isUnset(left);
  const rightUnset = isUnset(right);
  if (leftUnset || rightUnset) return leftUnset && rightUnset;
  if (typeof left !== 'object' || typeof right !== 'object') return left === right;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => isSemanticallyEqual(item, right[index]));
  }
  const leftFields = left as Record<string, unknown>;
  const rightFields = right as Record<string, unknown>;
  for (const key of Object.keys(leftFields)) if (!isSemanticallyEqual(leftFields[key], ownField(rightFields, key))) return false;
  for (const key of Object.keys(rightFields)) if (!Object.hasOwn(leftFields, key) && !isUnset(rightFields[key])) return false;
  return true;
}

/**
 * JSON with keys sorted and unset fields left out: two values give the same text exactly when
 * `isSemanticallyEqual` holds, so the text is a hash or cache key that key order cannot change.
 * An unset value as a whole gives `null`.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value) ?? null);
}

// Only own fields: `constructor` or `__proto__` of a plain object are not fields of it.
const ownField = (fields: Record<string, unknown>, key: string): unknown => (Object.hasOwn(fields, key) ? fields[key] : undefined);

/**
 * A shallow copy without `metadata.managedFields`, the server's record of who set which field: an object
 * built from a live one without them (to write it back) is compared with the live one through this.
 */
export function withoutManagedFields<T extends { metadata?: object }>(object: T): T {
  if (!object.metadata || !('managedFields' in object.metadata)) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata as { managedFields?: unknown };
  return { ...object, metadata };
}

/** Whether the value counts as unset: absent, null, or an empty list or map (recursively). */
export function isUnset(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value !== 'object') return false;
  for (const field of Object.values(value as Record<string, unknown>)) if (!isUnset(field)) return false;
  return true;
}

function canonical(value: unknown): unknown {
  if (isUnset(value)) return undefined;
  if (typeof value !== 'object') return value;
  // A list keeps its length: an unset item stays in place as null.
  if (Array.isArray(value)) return value.map((item) => canonical(item) ?? null);
  const fields = value as Record<string, unknown>;
  // No prototype: a hostile `__proto__` key stays a plain field.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(fields).sort()) {
    const field = canonical(fields[key]);
    if (field !== undefined) out[key] = field;
  }
  return out;
}

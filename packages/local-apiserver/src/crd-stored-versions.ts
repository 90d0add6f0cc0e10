import type { FieldProblem } from './errors.js';
import { isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';

/**
 * `status.storedVersions` of a CustomResourceDefinition, as kube-apiserver's CRD strategy keeps it: every
 * version objects were ever persisted in. A write of the CRD itself adds the storage version before it is
 * stored (so the response already lists it) and is refused when the list is invalid; a status write may
 * set any list (a storage migration removes the versions it emptied), which the next write of the CRD
 * then checks.
 */

function specVersions(crd: KubeObject): JsonObject[] {
  const spec = crd['spec'];
  return isJsonObject(spec) && Array.isArray(spec['versions']) ? spec['versions'].filter(isJsonObject) : [];
}

function storedVersionsOf(crd: KubeObject): unknown {
  return isJsonObject(crd['status']) ? crd['status']['storedVersions'] : undefined;
}

/** Adds the storage version to `status.storedVersions` when it is not there yet (create and spec updates). */
export function recordStorageVersion(crd: KubeObject): void {
  const storage = specVersions(crd).find((version) => version['storage'] === true)?.['name'];
  if (typeof storage !== 'string') return;
  const status: JsonObject = isJsonObject(crd['status']) ? crd['status'] : {};
  const stored = Array.isArray(status['storedVersions']) ? status['storedVersions'] : [];
  if (stored.includes(storage)) return;
  status['storedVersions'] = [...stored, storage];
  crd['status'] = status;
}

/** How Go's `%#v` prints a `[]string`, the value of kube's errors about the whole list. */
function goStringSlice(value: unknown): string {
  if (!Array.isArray(value)) return '[]string(nil)';
  return `[]string{${value.map((item) => JSON.stringify(String(item))).join(', ')}}`;
}

/**
 * kube-apiserver's ValidateCustomResourceDefinitionStoredVersions (Kubernetes 1.32 wording): at least one
 * stored version, the storage version among them, and each of them still in `spec.versions`. Checked on
 * creates and updates of a CRD, not on its status writes.
 */
export function storedVersionProblems(crd: KubeObject): FieldProblem[] {
  const field = 'status.storedVersions';
  const stored = storedVersionsOf(crd);
  if (!Array.isArray(stored) || stored.length === 0) {
    return [{ field, reason: 'FieldValueInvalid', message: `Invalid value: ${goStringSlice(stored)}: must have at least one stored version` }];
  }
  const problems: FieldProblem[] = [];
  // The last index of a name, as kube's map of stored versions keeps it.
  const unmatched = new Map<string, number>();
  stored.forEach((version, index) => unmatched.set(String(version), index));
  for (const version of specVersions(crd)) {
    const name = String(version['name'] ?? '');
    if (version['storage'] === true && !unmatched.has(name)) {
      // kube prints the whole version struct (%#v, pointers included); its scalar fields are what identify it.
      const printed = `apiextensions.CustomResourceDefinitionVersion{Name:${JSON.stringify(name)}, Served:${version['served'] === true}, Storage:true, ...}`;
      problems.push({ field, reason: 'FieldValueInvalid', message: `Invalid value: ${printed}: must have the storage version ${name}` });
    }
    unmatched.delete(name);
  }
  for (const [version, index] of [...unmatched].sort((left, right) => left[1] - right[1])) {
    problems.push({ field: `${field}[${index}]`, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(version)}: must appear in spec.versions` });
  }
  return problems;
}

import type { FieldProblem } from './errors.js';
import { isValidLabelKey } from '@olm/label-selector';
import { isJsonObject, type KubeObject } from './kube-object.js';

const totalAnnotationSizeLimit = 256 * 1024;

/** What kube-apiserver refuses in any object's metadata: label and annotation syntax, annotation size, owner references, finalizers. */
export function validateMetadata(object: KubeObject): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const metadata = object.metadata;
  for (const field of ['labels', 'annotations'] as const) {
    const map = metadata[field];
    if (!isJsonObject(map)) continue;
    for (const [key, value] of Object.entries(map)) {
      if (typeof value !== 'string') {
        problems.push({ field: `metadata.${field}`, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: must be a string` });
      } else if (field === 'labels' && (value.length > 63 || !/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(value))) {
        problems.push({ field: `metadata.labels`, reason: 'FieldValueInvalid', message: `Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')` });
      }
      if (!isValidLabelKey(key)) {
        problems.push({ field: `metadata.${field}`, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')` });
      }
    }
  }
  // kube-apiserver bounds the annotations' total size (keys and values, in bytes), not each one.
  if (isJsonObject(metadata.annotations)) {
    let total = 0;
    for (const [key, value] of Object.entries(metadata.annotations)) total += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
    if (total > totalAnnotationSizeLimit) {
      problems.push({ field: 'metadata.annotations', reason: 'FieldValueTooLong', message: `Too long: must have at most ${totalAnnotationSizeLimit} bytes` });
    }
  }
  const owners = metadata.ownerReferences;
  if (owners !== undefined) {
    if (!Array.isArray(owners)) problems.push({ field: 'metadata.ownerReferences', reason: 'FieldValueInvalid', message: 'Invalid value: must be a list' });
    else
      owners.forEach((owner, index) => {
        if (!isJsonObject(owner)) return;
        for (const field of ['apiVersion', 'kind', 'name', 'uid']) {
          if (typeof owner[field] !== 'string' || owner[field] === '') {
            problems.push({ field: `metadata.ownerReferences[${index}].${field}`, reason: 'FieldValueInvalid', message: `Invalid value: "": ${field} must not be empty` });
          }
        }
      });
  }
  const finalizers = metadata.finalizers;
  if (finalizers !== undefined && (!Array.isArray(finalizers) || finalizers.some((finalizer) => typeof finalizer !== 'string'))) {
    problems.push({ field: 'metadata.finalizers', reason: 'FieldValueInvalid', message: 'Invalid value: must be a list of strings' });
  }
  return problems;
}

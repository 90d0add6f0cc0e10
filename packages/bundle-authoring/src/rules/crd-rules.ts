import type { ManifestFile, ManifestObject } from '../bundle-content.js';
import type { ProblemList } from '../bundle-problem.js';
import { crdKeys, ownedApis, type Gvk } from './provided-apis.js';
import { isObject } from '../json-shapes.js';

const keyOf = (gvk: Gvk) => `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;

/**
 * The bundle's CRDs against its CSV, as operator-sdk's bundle validator checks them: every owned CRD
 * (each version) is in the bundle, none twice; a CRD the CSV does not own is a warning. Each CRD's
 * name must be `<plural>.<group>`, which the API server requires.
 */
export function checkOwnedCrds(csvFile: string, csv: ManifestObject, manifests: readonly ManifestFile[], problems: ProblemList): void {
  const inBundle = new Map<string, string>();
  for (const manifest of manifests) {
    for (const crd of manifest.objects.filter((object) => object.kind === 'CustomResourceDefinition')) {
      checkCrdName(manifest.file, crd, problems);
      for (const key of crdKeys(crd)) {
        const text = keyOf(key);
        if (inBundle.has(text)) problems.error('bundle-duplicate-crd', manifest.file, 'spec', `duplicate CRD ${text} (also in ${inBundle.get(text)})`, 'keep one CustomResourceDefinition per API');
        inBundle.set(text, manifest.file);
      }
    }
  }
  const spec = isObject(csv.spec) ? csv.spec : {};
  const owned = isObject(spec.customresourcedefinitions) && Array.isArray(spec.customresourcedefinitions.owned) ? spec.customresourcedefinitions.owned : [];
  for (const [index, entry] of owned.entries()) {
    const name = isObject(entry) && typeof entry.name === 'string' ? entry.name : '';
    if (!name.includes('.')) {
      problems.error('csv-owned-crds', csvFile, `spec.customresourcedefinitions.owned[${index}].name`, `${JSON.stringify(name)} is not <plural>.<group>`, 'name the owned CRD as its metadata.name, e.g. things.acme.example.com');
    }
  }
  const ownedKeys = ownedApis({ ...csv, spec: { customresourcedefinitions: { owned } } } as ManifestObject);
  for (const [index, key] of ownedKeys.entries()) {
    const text = keyOf(key);
    if (!inBundle.delete(text)) {
      problems.error('bundle-owned-crds', csvFile, `spec.customresourcedefinitions.owned[${index}]`, `owned CRD ${text} not found in the bundle`, 'add its CustomResourceDefinition (with that version) to manifests/, or fix the owned entry');
    }
  }
  for (const [text, file] of inBundle) {
    problems.warning('bundle-owned-crds', file, 'spec', `CRD ${text} is in the bundle but not owned by the CSV`, 'list it under spec.customresourcedefinitions.owned of the CSV');
  }
}

function checkCrdName(file: string, crd: ManifestObject, problems: ProblemList): void {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const plural = isObject(spec.names) && typeof spec.names.plural === 'string' ? spec.names.plural : '';
  const expected = `${plural}.${typeof spec.group === 'string' ? spec.group : ''}`;
  const name = isObject(crd.metadata) ? crd.metadata.name : undefined;
  if (name !== expected) problems.error('crd-name', file, 'metadata.name', `is ${JSON.stringify(name)}, not ${JSON.stringify(expected)} (spec.names.plural.spec.group)`, `rename the CRD to ${expected}`);
}

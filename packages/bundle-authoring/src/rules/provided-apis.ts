import type { ManifestObject } from '../bundle-content.js';
import { isObject } from '../json-shapes.js';

export interface Gvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The CSV's CRD and API service descriptions of one side (`owned` or `required`). */
function apis(csv: ManifestObject, side: 'owned' | 'required'): Gvk[] {
  const spec = isObject(csv.spec) ? csv.spec : {};
  const crds = isObject(spec.customresourcedefinitions) && Array.isArray(spec.customresourcedefinitions[side]) ? spec.customresourcedefinitions[side] : [];
  const services = isObject(spec.apiservicedefinitions) && Array.isArray(spec.apiservicedefinitions[side]) ? spec.apiservicedefinitions[side] : [];
  return [
    // a CRD's group is its name after the plural (`things.acme.example.com`)
    ...crds.filter(isObject).map((crd) => ({ group: text(crd.name).split('.').slice(1).join('.'), version: text(crd.version), kind: text(crd.kind) })),
    ...services.filter(isObject).map((service) => ({ group: text(service.group), version: text(service.version), kind: text(service.kind) })),
  ];
}

/** The APIs a CSV provides: its owned CRDs and API services. */
export const ownedApis = (csv: ManifestObject): Gvk[] => apis(csv, 'owned');
/** The APIs a CSV requires. */
export const requiredApis = (csv: ManifestObject): Gvk[] => apis(csv, 'required');

/** The (group, version, kind) of every version of a CRD manifest (v1, or v1beta1 with a single `version`). */
export function crdKeys(crd: ManifestObject): Gvk[] {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const group = text(spec.group);
  const kind = isObject(spec.names) ? text(spec.names.kind) : '';
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject).map((version) => text(version.name)) : [text(spec.version)];
  return versions.map((version) => ({ group, version, kind }));
}

import type { JSONSchemaProps } from '@olm/structural-schema';

export interface CrdVersion {
  readonly name: string;
  readonly served?: boolean;
  readonly storage?: boolean;
  readonly schema?: { readonly openAPIV3Schema?: JSONSchemaProps };
}

/** The CustomResourceDefinition fields the upgrade checks read. */
export interface CrdView {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string; readonly plural: string };
    /** `Namespaced` or `Cluster`; the v0 check does not read it, the schema-diff `scope` rule does. */
    readonly scope?: string;
    readonly versions: readonly CrdVersion[];
    readonly conversion?: { readonly strategy?: string };
  };
  readonly status?: { readonly storedVersions?: readonly string[] };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether an object (a manifest, a live CRD) has the fields the upgrade check reads. */
export function isCrdView(object: unknown): object is CrdView {
  if (!isRecord(object) || !isRecord(object.metadata) || typeof object.metadata.name !== 'string') return false;
  const spec = object.spec;
  if (!isRecord(spec) || typeof spec.group !== 'string' || !isRecord(spec.names) || typeof spec.names.kind !== 'string') return false;
  return Array.isArray(spec.versions) && spec.versions.every((version) => isRecord(version) && typeof version.name === 'string');
}

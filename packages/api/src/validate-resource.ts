import { type CompiledSchema, compileSchema, type FieldError } from '@olm/structural-schema';
import { buildCrds } from './crds.js';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from './custom-resource-definition.js';
import { OperatorsResourceError, OperatorsResourceErrorCodes } from './errors.js';

// The validator's own copy of the CRDs: callers may change the exported `crds` without affecting it.
const definitions: readonly CustomResourceDefinition[] = buildCrds();
const byKind = new Map(definitions.map((crd) => [crd.spec.names.kind, crd]));
const kinds = definitions.map((crd) => crd.spec.names.kind);
const compiled = new Map<string, CompiledSchema>();

function servedVersion(crd: CustomResourceDefinition, apiVersion: string): CustomResourceDefinitionVersion | undefined {
  return crd.spec.versions.find((version) => version.served && `${crd.spec.group}/${version.name}` === apiVersion);
}

function quote(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/** Why `object` is not an operators.coreos.com resource this package knows, as field errors; `[]` when it is. */
function identify(object: unknown): { schema?: CompiledSchema; errors: FieldError[] } {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) {
    const type = object === null ? 'null' : Array.isArray(object) ? 'array' : typeof object;
    return {
      errors: [{ field: '', type: 'FieldValueTypeInvalid', message: `Invalid value: ${JSON.stringify(type)}: must be an object with apiVersion and kind`, value: object }],
    };
  }
  const { apiVersion, kind } = object as { apiVersion?: unknown; kind?: unknown };
  const errors: FieldError[] = [];
  if (typeof apiVersion !== 'string' || apiVersion === '') errors.push({ field: 'apiVersion', type: 'FieldValueRequired', message: 'Required value' });
  if (typeof kind !== 'string' || kind === '') errors.push({ field: 'kind', type: 'FieldValueRequired', message: 'Required value' });
  if (errors.length > 0 || typeof apiVersion !== 'string' || typeof kind !== 'string') return { errors };
  const crd = byKind.get(kind);
  if (!crd) {
    return {
      errors: [{ field: 'kind', type: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(kind)}: supported values: ${quote(kinds)}`, value: kind }],
    };
  }
  const version = servedVersion(crd, apiVersion);
  if (!version) {
    const served = crd.spec.versions.filter((version) => version.served).map((version) => `${crd.spec.group}/${version.name}`);
    return {
      errors: [
        {
          field: 'apiVersion',
          type: 'FieldValueNotSupported',
          message: `Unsupported value: ${JSON.stringify(apiVersion)}: supported values: ${quote(served)}`,
          value: apiVersion,
        },
      ],
    };
  }
  const key = `${apiVersion}/${kind}`;
  let schema = compiled.get(key);
  if (!schema) {
    schema = compileSchema(version.schema.openAPIV3Schema);
    compiled.set(key, schema);
  }
  return { schema, errors: [] };
}

function schemaFor(object: unknown): CompiledSchema {
  const { schema, errors } = identify(object);
  if (schema) return schema;
  const detail = errors.map((error) => (error.field ? `${error.field}: ${error.message}` : error.message)).join(', ');
  throw new OperatorsResourceError(
    OperatorsResourceErrorCodes.unknownResource,
    `not an operators.coreos.com resource: ${detail}. Set apiVersion and kind to a served version of one of ${quote(kinds)}.`,
  );
}

/**
 * Checks an operators.coreos.com object against its CRD schema (chosen by apiVersion and kind) as the
 * API server would, returning path-qualified field errors (`spec.install: Required value`). An unknown
 * apiVersion or kind is reported as an error on that field. Unknown fields are not errors here
 * (see {@link pruneResource}); the object's `metadata` is not checked. Never throws.
 */
export function validateResource(object: unknown): FieldError[] {
  const { schema, errors } = identify(object);
  return schema ? schema.validate(object) : errors;
}

/**
 * Drops the fields the CRD schema does not specify and reports them (`spec.serviceAccount`,
 * `metadata.spec`). Throws `OperatorsResourceError` `OLM_API_UNKNOWN_RESOURCE` for an unknown apiVersion/kind.
 */
export function pruneResource(object: unknown): { object: unknown; unknownFields: string[] } {
  return schemaFor(object).prune(object);
}

/** Applies the CRD schema's defaults. Throws `OperatorsResourceError` `OLM_API_UNKNOWN_RESOURCE` for an unknown apiVersion/kind. */
export function defaultResource<T>(object: T): T {
  return schemaFor(object).applyDefaults(object) as T;
}

/**
 * What the API server does on create with `fieldValidation=Warn`: prune, default, validate. Returns the
 * stored form, the dropped fields and the errors (an object with errors would be rejected with 422).
 */
export function admitResource(object: unknown): { object: unknown; unknownFields: string[]; errors: FieldError[] } {
  const { schema, errors } = identify(object);
  if (!schema) return { object, unknownFields: [], errors };
  const pruned = schema.prune(object);
  const defaulted = schema.applyDefaults(pruned.object);
  return { object: defaulted, unknownFields: pruned.unknownFields, errors: schema.validate(defaulted) };
}

import { childPath, formatValue, indexPath, isObject } from './field-path.js';
import type { FieldError, JSONSchemaProps } from './json-schema-props.js';

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Message =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/**
 * Checks objects under `x-kubernetes-embedded-resource: true` the way the API server does: they need a
 * non-empty string `apiVersion` (a valid group/version) and `kind` (a DNS-1035 label up to case);
 * `metadata` stays optional. Never throws.
 */
export function validateEmbeddedResources(schema: JSONSchemaProps, object: unknown): FieldError[] {
  const errors: FieldError[] = [];
  walk(schema, object, '', true, errors);
  return errors;
}

function walk(schema: JSONSchemaProps | undefined, value: unknown, path: string, isRoot: boolean, errors: FieldError[]): void {
  if (!isObject(schema)) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (isObject(items)) value.forEach((item, index) => walk(items, item, indexPath(path, index), false, errors));
    return;
  }
  if (!isObject(value)) return;
  if (!isRoot && schema['x-kubernetes-embedded-resource'] === true) checkResource(value, path, errors);
  const properties = isObject(schema.properties) ? schema.properties : {};
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  for (const [key, item] of Object.entries(value)) {
    const sub = Object.hasOwn(properties, key) ? properties[key] : additional;
    if (sub !== undefined) walk(sub, item, childPath(path, key), false, errors);
  }
}

function invalid(field: string, value: unknown, detail: string): FieldError {
  return { field, type: 'FieldValueInvalid', message: `Invalid value: ${formatValue(value)}: ${detail}`, value };
}

function checkResource(resource: Record<string, unknown>, path: string, errors: FieldError[]): void {
  const apiVersionPath = childPath(path, 'apiVersion');
  const kindPath = childPath(path, 'kind');
  const { apiVersion, kind } = resource;
  if (!Object.hasOwn(resource, 'apiVersion')) errors.push({ field: apiVersionPath, type: 'FieldValueRequired', message: 'Required value: must not be empty' });
  else if (typeof apiVersion !== 'string') errors.push(invalid(apiVersionPath, apiVersion, 'must be a string'));
  else if (apiVersion === '') errors.push(invalid(apiVersionPath, apiVersion, 'must not be empty'));
  else if (apiVersion.split('/').length > 2 || apiVersion.startsWith('/') || apiVersion.endsWith('/')) {
    errors.push(invalid(apiVersionPath, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  }
  if (!Object.hasOwn(resource, 'kind')) errors.push({ field: kindPath, type: 'FieldValueRequired', message: 'Required value: must not be empty' });
  else if (typeof kind !== 'string') errors.push(invalid(kindPath, kind, 'must be a string'));
  else if (kind === '') errors.push(invalid(kindPath, kind, 'must not be empty'));
  else if (kind.length > 63 || !dns1035Label.test(kind.toLowerCase())) {
    errors.push(invalid(kindPath, kind, `may have mixed case, but should otherwise match: ${dns1035Message}`));
  }
}

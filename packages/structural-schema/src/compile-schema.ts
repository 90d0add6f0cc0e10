import { compileRe2Pattern } from '@olm/untrusted-input';
import { Ajv, type CodeOptions, type ErrorObject, type ValidateFunction } from 'ajv';
import { defaultObject } from './defaults.js';
import { SchemaError, SchemaErrorCodes } from './errors.js';
import { childPath, formatValue, indexPath, isObject, jsonTypeOf } from './field-path.js';
import { kubernetesFormats } from './formats.js';
import { validateEmbeddedResources } from './embedded-resources.js';
import { validateListTypes } from './list-types.js';
import type { FieldError, JSONSchemaProps } from './json-schema-props.js';
import { type PruneResult, pruneObject } from './prune.js';

let ajvInstance: Ajv | undefined;

/**
 * ajv's pluggable regular-expression engine: `pattern`s are RE2 in Kubernetes, and matched in linear
 * time (a JavaScript RegExp such as `^(a+)+$` backtracks for minutes and stalls the process). ajv
 * shares compiled patterns by their `toString()`, so it must be the pattern.
 */
const re2Engine: NonNullable<CodeOptions['regExp']> = Object.assign(
  (pattern: string) => {
    const compiled = compileRe2Pattern(pattern);
    return { test: (value: string) => compiled.test(value), toString: () => pattern };
  },
  { code: 'compileRe2Pattern' },
);

/**
 * One ajv for all schemas: creating one and compiling its meta-schema costs more than compiling a small
 * CRD schema. Every translated schema is removed from its cache after compilation.
 */
function sharedAjv(): Ajv {
  if (ajvInstance === undefined) {
    // inlineRefs: false keeps each hoisted subschema one function, which is what makes big CRDs compile fast.
    ajvInstance = new Ajv({ allErrors: true, strict: false, validateFormats: true, verbose: false, inlineRefs: false, code: { regExp: re2Engine } });
    for (const [name, format] of Object.entries(kubernetesFormats)) ajvInstance.addFormat(name, format as never);
  }
  return ajvInstance;
}

/** A schema compiled once, to validate, prune and default many objects. */
export interface CompiledSchema {
  /** The schema it was compiled from. */
  readonly schema: JSONSchemaProps;
  /** All problems of `object`, with Kubernetes field paths and messages; `[]` when valid. Never throws. */
  validate(object: unknown): FieldError[];
  /** A copy of `object` without the fields the schema does not specify, and the paths of those fields. */
  prune(object: unknown): PruneResult;
  /** A copy of `object` with the schema's `default`s filled in where fields are absent. */
  applyDefaults(object: unknown): unknown;
}

/**
 * Compiles a structural schema (with ajv) into a reusable validator. Throws a `SchemaError` with code
 * `OLM_SCHEMA_INVALID` when the schema cannot be compiled (e.g. `minimum: "one"` or a bad `pattern`);
 * use `checkStructural` first to learn whether Kubernetes would accept it.
 */
export function compileSchema(schema: JSONSchemaProps): CompiledSchema {
  return compileNode(schema, true);
}

/**
 * Compiles `schema` as the root of a resource (`isRoot`: root `metadata` left to ObjectMeta validation,
 * `apiVersion`/`kind`/`metadata` kept by pruning) or as a nested field schema (used to check `default`s).
 */
export function compileNode(schema: JSONSchemaProps, isRoot: boolean): CompiledSchema {
  if (!isObject(schema)) {
    throw new SchemaError(SchemaErrorCodes.invalid, `cannot compile schema: expected a JSONSchemaProps object, got ${jsonTypeOf(schema)}`);
  }
  const plain = translate(schema, isRoot, '');
  const translated = hoistRepeatedSubschemas(plain);
  const ajv = sharedAjv();
  let validateFn: ValidateFunction;
  try {
    validateFn = ajv.compile(translated);
  } catch (error) {
    // Locate the problem in the schema as written, not in its hoisted form.
    ajv.validateSchema(plain);
    const errors = ajv.errors ?? [];
    throw new SchemaError(
      SchemaErrorCodes.invalid,
      `cannot compile schema: ${describeAjvFailure(error, errors)}. Fix the schema (see checkStructural for what Kubernetes accepts).`,
      { cause: error, ...(errors[0] ? { path: schemaLocation(errors[0].instancePath) } : {}) },
    );
  } finally {
    // The compiled function keeps what it needs; dropping ajv's cache entry lets the schema be collected.
    ajv.removeSchema(translated);
  }
  const serialised = JSON.stringify(schema);
  const hasListTypes = /"x-kubernetes-list-type":"(set|map)"/.test(serialised);
  const hasEmbeddedResources = serialised.includes('"x-kubernetes-embedded-resource":true');
  return {
    schema,
    validate: (object) => {
      const errors = validateFn(object) ? [] : toFieldErrors(validateFn.errors ?? [], object);
      if (hasListTypes) errors.push(...validateListTypes(schema, object));
      if (hasEmbeddedResources) errors.push(...validateEmbeddedResources(schema, object));
      return errors;
    },
    prune: (object) => pruneObject(schema, object, { isResource: isRoot }),
    applyDefaults: (object) => defaultObject(schema, object),
  };
}

function describeAjvFailure(error: unknown, errors: ErrorObject[] | null | undefined): string {
  if (errors && errors.length > 0) {
    return errors
      .map((e) => `${schemaLocation(e.instancePath)}: ${e.message ?? e.keyword}${e.params && 'allowedValues' in e.params ? ` (${JSON.stringify(e.params.allowedValues)})` : ''}`)
      .join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}

/** Turns ajv's JSON pointer into the schema (e.g. `/properties/spec/minimum`) into `properties[spec].minimum`. */
function schemaLocation(pointer: string): string {
  const parts = pointer.split('/').slice(1).map(unescapePointer);
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (part === 'properties' && i + 1 < parts.length) {
      out += `${out ? '.' : ''}properties[${parts[++i]}]`;
    } else if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += `${out ? '.' : ''}${part}`;
  }
  return out === '' ? 'the schema root' : out;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

const junctorKeywords = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * Rewrites Kubernetes OpenAPI v3 into what ajv (draft-07) understands: `nullable` and
 * `x-kubernetes-int-or-string` become type lists, boolean `exclusiveMinimum/Maximum` become numeric,
 * unknown formats are dropped (Kubernetes accepts them), and the root `metadata` is left to the
 * API server's ObjectMeta validation. Extensions and descriptions are not carried over.
 */
function translate(node: JSONSchemaProps, isRoot: boolean, path: string): Record<string, unknown> {
  if (!isObject(node)) {
    throw new SchemaError(SchemaErrorCodes.invalid, `cannot compile schema: ${path || 'the schema root'} must be a schema object, got ${jsonTypeOf(node)}`, {
      path,
    });
  }
  const out: Record<string, unknown> = {};
  const nullable = node.nullable === true;
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  const types: unknown[] = intOrString ? ['integer', 'string'] : node.type !== undefined && node.type !== '' ? [node.type] : [];
  if (types.length > 0) {
    if (nullable) types.push('null');
    out.type = types.length === 1 ? types[0] : types;
  }
  if (node.properties !== undefined) {
    if (!isObject(node.properties)) throw invalidAt(childPath(path, 'properties'), 'must be an object of schemas');
    const properties: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(node.properties)) {
      const subPath = `${path ? `${path}.` : ''}properties[${name}]`;
      if (isRoot && name === 'metadata') {
        // ObjectMeta is validated by the API server itself; a CRD may only restrict name and generateName.
        const restricted = isObject(sub) && isObject(sub.properties) ? sub.properties : {};
        const kept: Record<string, unknown> = {};
        for (const field of ['name', 'generateName']) {
          const fieldSchema = restricted[field];
          if (fieldSchema !== undefined) kept[field] = translate(fieldSchema, false, `${subPath}.properties[${field}]`);
        }
        if (Object.keys(kept).length > 0) properties[name] = { properties: kept };
        continue;
      }
      properties[name] = translate(sub, false, subPath);
    }
    out.properties = properties;
  }
  if (node.items !== undefined) {
    if (!isObject(node.items)) throw invalidAt(childPath(path, 'items'), 'must be a schema object');
    out.items = translate(node.items, false, childPath(path, 'items'));
  }
  if (node.additionalProperties !== undefined && node.additionalProperties !== true) {
    out.additionalProperties =
      node.additionalProperties === false ? false : translate(node.additionalProperties as JSONSchemaProps, false, childPath(path, 'additionalProperties'));
  }
  if (node.enum !== undefined) {
    if (!Array.isArray(node.enum)) throw invalidAt(childPath(path, 'enum'), 'must be a list of values');
    out.enum = nullable && !node.enum.includes(null) ? [...node.enum, null] : node.enum;
  }
  if (node.minimum !== undefined) {
    if (node.exclusiveMinimum === true) out.exclusiveMinimum = node.minimum;
    else out.minimum = node.minimum;
  }
  if (node.maximum !== undefined) {
    if (node.exclusiveMaximum === true) out.exclusiveMaximum = node.maximum;
    else out.maximum = node.maximum;
  }
  for (const keyword of ['required', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties'] as const) {
    if (node[keyword] !== undefined) out[keyword] = node[keyword];
  }
  if (node.pattern !== undefined) {
    if (typeof node.pattern !== 'string') throw invalidAt(childPath(path, 'pattern'), 'must be a string');
    try {
      compileRe2Pattern(node.pattern);
    } catch (error) {
      throw invalidAt(childPath(path, 'pattern'), `is not a valid regular expression (${(error as Error).message})`);
    }
    out.pattern = node.pattern;
  }
  if (typeof node.format === 'string' && Object.hasOwn(kubernetesFormats, node.format)) out.format = node.format;
  const skipIntOrStringAnyOf = intOrString && isIntOrStringPattern(node.anyOf);
  for (const keyword of junctorKeywords) {
    const list = node[keyword];
    if (list === undefined || (keyword === 'anyOf' && skipIntOrStringAnyOf)) continue;
    if (!Array.isArray(list)) throw invalidAt(childPath(path, keyword), 'must be a list of schemas');
    out[keyword] = list.map((sub, index) => translate(sub, false, `${childPath(path, keyword)}[${index}]`));
  }
  if (node.not !== undefined) out.not = translate(node.not, false, childPath(path, 'not'));
  return out;
}

/** Subschemas smaller than this (in JSON characters) are not worth a function call of their own. */
const minimumHoistedSize = 160;

/**
 * CRD schemas repeat the same structures many times (descriptors, label selectors, conditions). ajv
 * generates code for every copy, so a CSV schema compiles to ~180 kB of code. Moving repeated
 * subschemas under `definitions` and referring to them with `$ref` makes each one a single function.
 * Subschemas inside anyOf/oneOf/not are left in place: error filtering relies on their schema paths.
 */
function hoistRepeatedSubschemas(root: Record<string, unknown>): Record<string, unknown> {
  const counts = new Map<string, number>();
  const count = (node: unknown, inAlternative: boolean): void => {
    if (!isObject(node)) return;
    if (!inAlternative && node !== root) {
      const key = JSON.stringify(node);
      if (key.length >= minimumHoistedSize) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    forEachSubschema(node, (child, alternative) => count(child, inAlternative || alternative));
  };
  count(root, false);
  const definitions: Record<string, unknown> = {};
  const names = new Map<string, string>();
  const rewrite = (node: Record<string, unknown>, inAlternative: boolean): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...node };
    forEachSubschema(node, (child, alternative, set) => {
      const nested = inAlternative || alternative;
      const key = nested ? '' : JSON.stringify(child);
      if (!nested && (counts.get(key) ?? 0) >= 2) {
        let name = names.get(key);
        if (name === undefined) {
          name = `s${names.size}`;
          names.set(key, name);
          definitions[name] = rewrite(child, false);
        }
        set(out, { $ref: `#/definitions/${name}` });
      } else {
        set(out, rewrite(child, nested));
      }
    });
    return out;
  };
  const rewritten = rewrite(root, false);
  return names.size === 0 ? root : { ...rewritten, definitions };
}

/** Calls `visit` for each direct subschema of a translated node, with a setter to replace it in a copy. */
function forEachSubschema(
  node: Record<string, unknown>,
  visit: (child: Record<string, unknown>, isAlternative: boolean, set: (target: Record<string, unknown>, value: unknown) => void) => void,
): void {
  if (isObject(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      if (!isObject(child)) continue;
      visit(child, false, (target, value) => {
        target.properties = { ...(target.properties as Record<string, unknown>), [name]: value };
      });
    }
  }
  for (const keyword of ['items', 'additionalProperties', 'not'] as const) {
    const child = node[keyword];
    if (isObject(child)) visit(child, keyword === 'not', (target, value) => (target[keyword] = value));
  }
  for (const keyword of junctorKeywords) {
    const list = node[keyword];
    if (!Array.isArray(list)) continue;
    list.forEach((child, index) => {
      if (!isObject(child)) return;
      visit(child, keyword !== 'allOf', (target, value) => {
        const copy = [...(target[keyword] as unknown[])];
        copy[index] = value;
        target[keyword] = copy;
      });
    });
  }
}

function isIntOrStringPattern(anyOf: unknown): boolean {
  return Array.isArray(anyOf) && anyOf.length === 2 && isObject(anyOf[0]) && anyOf[0].type === 'integer' && isObject(anyOf[1]) && anyOf[1].type === 'string';
}

function invalidAt(path: string, problem: string): SchemaError {
  return new SchemaError(SchemaErrorCodes.invalid, `cannot compile schema: ${path} ${problem}`, { path });
}

/** Walks ajv's instance pointer through the data so that array indices and property names render correctly. */
function resolveInstance(pointer: string, data: unknown): { field: string; value: unknown } {
  let field = '';
  let value = data;
  if (pointer === '') return { field, value };
  for (const raw of pointer.split('/').slice(1)) {
    const segment = unescapePointer(raw);
    if (Array.isArray(value)) {
      const index = Number(segment);
      field = indexPath(field, index);
      value = value[index];
    } else {
      field = childPath(field, segment);
      value = isObject(value) ? value[segment] : undefined;
    }
  }
  return { field, value };
}

const nestedKeywords = new Set(['anyOf', 'oneOf', 'not']);
const namedChildKeywords = new Set(['properties', 'patternProperties', 'definitions', 'allOf']);

/** True when the error comes from inside an anyOf/oneOf branch or a `not`: those are summarised by the junctor's own error. */
function isInsideAlternative(schemaPath: string): boolean {
  const segments = schemaPath.split('/').slice(1);
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i] ?? '';
    if (namedChildKeywords.has(segment)) i++;
    else if (nestedKeywords.has(segment)) return true;
  }
  return false;
}

function inBody(field: string): string {
  return field === '' ? 'body' : `${field} in body`;
}

function toFieldErrors(errors: readonly ErrorObject[], data: unknown): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (isInsideAlternative(error.schemaPath)) continue;
    const fieldError = toFieldError(error, data);
    const key = `${fieldError.field}\u0000${fieldError.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(fieldError);
  }
  return out;
}

function toFieldError(error: ErrorObject, data: unknown): FieldError {
  const { field, value } = resolveInstance(error.instancePath, data);
  const params = error.params as Record<string, unknown>;
  const invalid = (detail: string): FieldError => ({
    field,
    type: 'FieldValueInvalid',
    message: `Invalid value: ${formatValue(value)}: ${inBody(field)} ${detail}`,
    value,
  });
  // go-openapi words the junctor errors with the quoted path instead of "… in body".
  const junctor = (detail: string): FieldError => ({
    field,
    type: 'FieldValueInvalid',
    message: `Invalid value: ${formatValue(value)}: ${JSON.stringify(field === '' ? 'body' : field)} ${detail}`,
    value,
  });
  switch (error.keyword) {
    case 'type': {
      const expected = (Array.isArray(params.type) ? params.type : String(params.type).split(','))
        .filter((type) => type !== 'null')
        .join(',');
      const actual = jsonTypeOf(value);
      return {
        field,
        type: 'FieldValueTypeInvalid',
        message: `Invalid value: ${JSON.stringify(actual)}: ${inBody(field)} must be of type ${expected}: ${JSON.stringify(actual)}`,
        value,
      };
    }
    case 'required':
      return { field: childPath(field, String(params.missingProperty)), type: 'FieldValueRequired', message: 'Required value' };
    case 'enum': {
      const allowed = (Array.isArray(params.allowedValues) ? params.allowedValues : []).filter((v) => v !== null || value === null);
      // As Kubernetes: strings are listed as they are, other values as their JSON; all quoted.
      const listed = allowed.map((v) => JSON.stringify(typeof v === 'string' ? v : JSON.stringify(v)));
      return { field, type: 'FieldValueNotSupported', message: `Unsupported value: ${formatValue(value)}: supported values: ${listed.join(', ')}`, value };
    }
    case 'maxLength':
      return { field, type: 'FieldValueTooLong', message: `Too long: may not be longer than ${String(params.limit)}`, value };
    case 'minLength':
      return invalid(`should be at least ${String(params.limit)} chars long`);
    case 'maxItems':
      return {
        field,
        type: 'FieldValueTooMany',
        message: `Too many: ${Array.isArray(value) ? value.length : 0}: must have at most ${String(params.limit)} items`,
        value,
      };
    case 'minItems':
      return invalid(`should have at least ${String(params.limit)} items`);
    case 'uniqueItems':
      return invalid("shouldn't contain duplicates");
    case 'minimum':
      return invalid(`should be greater than or equal to ${String(params.limit)}`);
    case 'exclusiveMinimum':
      return invalid(`should be greater than ${String(params.limit)}`);
    case 'maximum':
      return invalid(`should be less than or equal to ${String(params.limit)}`);
    case 'exclusiveMaximum':
      return invalid(`should be less than ${String(params.limit)}`);
    case 'multipleOf':
      return invalid(`should be a multiple of ${String(params.multipleOf)}`);
    case 'pattern':
      return invalid(`should match '${String(params.pattern)}'`);
    case 'minProperties':
      return invalid(`should have at least ${String(params.limit)} properties`);
    case 'maxProperties':
      return {
        field,
        type: 'FieldValueTooMany',
        message: `Too many: ${isObject(value) ? Object.keys(value).length : 0}: must have at most ${String(params.limit)} items`,
        value,
      };
    case 'format':
      return {
        field,
        type: 'FieldValueTypeInvalid',
        message: `Invalid value: ${formatValue(value)}: ${inBody(field)} must be of type ${String(params.format)}: ${JSON.stringify(typeof value === 'string' ? value : formatValue(value))}`,
        value,
      };
    case 'anyOf':
      return junctor('must validate at least one schema (anyOf)');
    case 'oneOf': {
      const passing = Array.isArray(params.passingSchemas) ? params.passingSchemas.length : 0;
      return junctor(`must validate one and only one schema (oneOf). ${passing === 0 ? 'Found none valid' : `Found ${passing} valid alternatives`}`);
    }
    case 'not':
      return junctor('must not validate the schema (not)');
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const path = childPath(field, name);
      const item = isObject(value) ? value[name] : undefined;
      return { field: path, type: 'FieldValueInvalid', message: `Invalid value: ${formatValue(item)}: ${path} in body is a forbidden property`, value: item };
    }
    default:
      return invalid(error.message ?? `fails ${error.keyword}`);
  }
}

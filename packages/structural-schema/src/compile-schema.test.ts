import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.js';
import type { JSONSchemaProps } from './json-schema-props.js';

const withSpec = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: { type: 'object', properties, ...extra } },
});
const check = (properties: Record<string, JSONSchemaProps>, spec: unknown, extra?: JSONSchemaProps) =>
  compileSchema(withSpec(properties, extra)).validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec });
const messages = (errors: { field: string; message: string }[]) => errors.map((e) => `${e.field}: ${e.message}`);

describe('compileSchema().validate', () => {
  it('returns [] for a valid object', () => {
    expect(check({ size: { type: 'integer' }, name: { type: 'string' } }, { size: 3, name: 'x' })).toEqual([]);
  });

  it('reports type errors as Kubernetes does', () => {
    expect(check({ size: { type: 'integer' } }, { size: 'string' })).toEqual([
      {
        field: 'spec.size',
        type: 'FieldValueTypeInvalid',
        message: 'Invalid value: "string": spec.size in body must be of type integer: "string"',
        value: 'string',
      },
    ]);
    expect(messages(check({ n: { type: 'number' }, b: { type: 'boolean' }, o: { type: 'object' }, a: { type: 'array', items: { type: 'string' } } }, { n: 1.5, b: 'yes', o: [], a: {} }))).toEqual([
      'spec.b: Invalid value: "string": spec.b in body must be of type boolean: "string"',
      'spec.o: Invalid value: "array": spec.o in body must be of type object: "array"',
      'spec.a: Invalid value: "object": spec.a in body must be of type array: "object"',
    ]);
    expect(messages(check({ i: { type: 'integer' } }, { i: 1.5 }))).toEqual(['spec.i: Invalid value: "number": spec.i in body must be of type integer: "number"']);
  });

  it('rejects null unless nullable', () => {
    expect(messages(check({ s: { type: 'string' } }, { s: null }))).toEqual(['spec.s: Invalid value: "null": spec.s in body must be of type string: "null"']);
    expect(check({ s: { type: 'string', nullable: true, enum: ['a'] } }, { s: null })).toEqual([]);
    expect(check({ o: { type: 'object', nullable: true, required: ['x'], properties: { x: { type: 'string' } } } }, { o: null })).toEqual([]);
  });

  it('applies nullable to array items and leaves untyped preserve-unknown-fields values open', () => {
    const properties: Record<string, JSONSchemaProps> = {
      names: { type: 'array', items: { type: 'string', nullable: true } },
      strict: { type: 'array', items: { type: 'string' } },
      anything: { 'x-kubernetes-preserve-unknown-fields': true },
    };
    expect(check(properties, { names: ['a', null], strict: ['a'], anything: 42 })).toEqual([]);
    expect(check(properties, { anything: [{ deep: true }] })).toEqual([]);
    expect(messages(check(properties, { strict: ['a', null] }))).toEqual(['spec.strict[1]: Invalid value: "null": spec.strict[1] in body must be of type string: "null"']);
  });

  it('accepts the allOf form of int-or-string with further restrictions', () => {
    const properties: Record<string, JSONSchemaProps> = {
      maxUnavailable: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^\\d+%?$' }] },
    };
    expect(check(properties, { maxUnavailable: 1 })).toEqual([]);
    expect(check(properties, { maxUnavailable: '25%' })).toEqual([]);
    expect(messages(check(properties, { maxUnavailable: 'half' }))).toEqual([
      `spec.maxUnavailable: Invalid value: "half": spec.maxUnavailable in body should match '^\\d+%?$'`,
    ]);
  });

  it('accepts integers and strings for x-kubernetes-int-or-string, nothing else', () => {
    const properties = { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } };
    expect(check(properties, { port: 8080 })).toEqual([]);
    expect(check(properties, { port: 'http' })).toEqual([]);
    expect(messages(check(properties, { port: 1.5 }))).toEqual(['spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"']);
    expect(check(properties, { port: true })).toHaveLength(1);
  });

  it('reports required fields with their full path', () => {
    expect(check({ a: { type: 'string' } }, {}, { required: ['a', 'b'] })).toEqual([
      { field: 'spec.a', type: 'FieldValueRequired', message: 'Required value' },
      { field: 'spec.b', type: 'FieldValueRequired', message: 'Required value' },
    ]);
  });

  it('reports enum violations as unsupported values', () => {
    expect(check({ mode: { type: 'string', enum: ['Automatic', 'Manual'] } }, { mode: 'auto' })).toEqual([
      { field: 'spec.mode', type: 'FieldValueNotSupported', message: 'Unsupported value: "auto": supported values: "Automatic", "Manual"', value: 'auto' },
    ]);
    expect(messages(check({ n: { type: 'integer', enum: [1, 2] } }, { n: 3 }))).toEqual(['spec.n: Unsupported value: 3: supported values: "1", "2"']);
  });

  it('checks numeric bounds, including OpenAPI v3 boolean exclusiveMinimum/Maximum', () => {
    const properties: Record<string, JSONSchemaProps> = {
      min: { type: 'integer', minimum: 1 },
      xmin: { type: 'integer', minimum: 1, exclusiveMinimum: true },
      max: { type: 'number', maximum: 10 },
      xmax: { type: 'number', maximum: 10, exclusiveMaximum: true },
      mult: { type: 'integer', multipleOf: 5 },
    };
    expect(check(properties, { min: 1, xmin: 2, max: 10, xmax: 9.5, mult: 10 })).toEqual([]);
    expect(messages(check(properties, { min: 0, xmin: 1, max: 10.5, xmax: 10, mult: 7 }))).toEqual([
      'spec.min: Invalid value: 0: spec.min in body should be greater than or equal to 1',
      'spec.xmin: Invalid value: 1: spec.xmin in body should be greater than 1',
      'spec.max: Invalid value: 10.5: spec.max in body should be less than or equal to 10',
      'spec.xmax: Invalid value: 10: spec.xmax in body should be less than 10',
      'spec.mult: Invalid value: 7: spec.mult in body should be a multiple of 5',
    ]);
  });

  it('checks string length and pattern', () => {
    const properties: Record<string, JSONSchemaProps> = { name: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' } };
    expect(check(properties, { name: 'abc' })).toEqual([]);
    expect(check(properties, { name: 'abcdef' })).toEqual([
      { field: 'spec.name', type: 'FieldValueTooLong', message: 'Too long: may not be longer than 4', value: 'abcdef' },
    ]);
    expect(messages(check(properties, { name: 'A' }))).toEqual([
      'spec.name: Invalid value: "A": spec.name in body should be at least 2 chars long',
      `spec.name: Invalid value: "A": spec.name in body should match '^[a-z]+$'`,
    ]);
  });

  it('checks array sizes and unique items', () => {
    const properties: Record<string, JSONSchemaProps> = { tags: { type: 'array', minItems: 1, maxItems: 2, uniqueItems: true, items: { type: 'string' } } };
    expect(check(properties, { tags: ['a', 'b'] })).toEqual([]);
    expect(check(properties, { tags: ['a', 'b', 'c'] })).toEqual([
      { field: 'spec.tags', type: 'FieldValueTooMany', message: 'Too many: 3: must have at most 2 items', value: ['a', 'b', 'c'] },
    ]);
    expect(messages(check(properties, { tags: [] }))).toEqual(['spec.tags: Invalid value: []: spec.tags in body should have at least 1 items']);
    expect(check(properties, { tags: ['a', 'a'] })).toEqual([
      { field: 'spec.tags', type: 'FieldValueInvalid', message: `Invalid value: ["a","a"]: spec.tags in body shouldn't contain duplicates`, value: ['a', 'a'] },
    ]);
  });

  it('checks property counts of maps', () => {
    const properties: Record<string, JSONSchemaProps> = { labels: { type: 'object', minProperties: 1, maxProperties: 2, additionalProperties: { type: 'string' } } };
    expect(messages(check(properties, { labels: {} }))).toEqual(['spec.labels: Invalid value: {}: spec.labels in body should have at least 1 properties']);
    expect(check(properties, { labels: { a: 'x', b: 'y', c: 'z' } })).toEqual([
      { field: 'spec.labels', type: 'FieldValueTooMany', message: 'Too many: 3: must have at most 2 items', value: { a: 'x', b: 'y', c: 'z' } },
    ]);
  });

  it('builds paths through nested arrays and maps', () => {
    const properties: Record<string, JSONSchemaProps> = {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            ports: { type: 'array', items: { type: 'object', required: ['port'], properties: { port: { type: 'integer' } } } },
          },
        },
      },
      byName: { type: 'object', additionalProperties: { type: 'object', properties: { weight: { type: 'integer' } } } },
      matrix: { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
    };
    expect(
      messages(check(properties, { items: [{ name: 'ok' }, { name: 'ok', ports: [{ port: 1 }, {}] }, { name: 3 }], byName: { 'a/b': { weight: 'heavy' } }, matrix: [[1], [2, 'x']] })),
    ).toEqual([
      'spec.items[1].ports[1].port: Required value',
      'spec.items[2].name: Invalid value: "integer": spec.items[2].name in body must be of type string: "integer"',
      'spec.byName.a/b.weight: Invalid value: "string": spec.byName.a/b.weight in body must be of type integer: "string"',
      'spec.matrix[1][1]: Invalid value: "string": spec.matrix[1][1] in body must be of type integer: "string"',
    ]);
  });

  it('reports fields forbidden by additionalProperties: false', () => {
    expect(check({ closed: { type: 'object', additionalProperties: false } }, { closed: { x: 1 } })).toEqual([
      { field: 'spec.closed.x', type: 'FieldValueInvalid', message: 'Invalid value: 1: spec.closed.x in body is a forbidden property', value: 1 },
    ]);
  });

  it('reports format errors as type errors, as Kubernetes does', () => {
    expect(check({ at: { type: 'string', format: 'date-time' } }, { at: 'noon' })).toEqual([
      { field: 'spec.at', type: 'FieldValueTypeInvalid', message: 'Invalid value: "noon": spec.at in body must be of type date-time: "noon"', value: 'noon' },
    ]);
  });

  it('checks formats Kubernetes knows and accepts unknown formats', () => {
    const properties: Record<string, JSONSchemaProps> = {
      at: { type: 'string', format: 'date-time' },
      day: { type: 'string', format: 'date' },
      n: { type: 'integer', format: 'int32' },
      big: { type: 'integer', format: 'int64' },
      data: { type: 'string', format: 'byte' },
      id: { type: 'string', format: 'uuid' },
      custom: { type: 'string', format: 'my-own-format' },
    };
    expect(
      check(properties, { at: '2024-01-02T03:04:05Z', day: '2024-01-02', n: 2147483647, big: 2 ** 40, data: 'aGVsbG8=', id: '123e4567-e89b-12d3-a456-426614174000', custom: '!' }),
    ).toEqual([]);
    expect(messages(check(properties, { at: 'yesterday', day: '2024-13-45', n: 2147483648, data: 'not base64!', id: 'nope' }))).toEqual([
      'spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"',
      'spec.day: Invalid value: "2024-13-45": spec.day in body must be of type date: "2024-13-45"',
      'spec.n: Invalid value: 2147483648: spec.n in body must be of type int32: "2147483648"',
      'spec.data: Invalid value: "not base64!": spec.data in body must be of type byte: "not base64!"',
      'spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"',
    ]);
  });

  it('summarises anyOf/oneOf/not failures in one error and applies allOf parts individually', () => {
    const properties: Record<string, JSONSchemaProps> = {
      any: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] },
      one: { type: 'integer', oneOf: [{ minimum: 0 }, { maximum: 10 }] },
      not: { type: 'string', not: { enum: ['forbidden'] } },
      all: { type: 'string', allOf: [{ minLength: 2 }, { pattern: '^x' }] },
    };
    expect(check(properties, { any: 'bob', one: -5, not: 'ok', all: 'xy' })).toEqual([]);
    expect(messages(check({ one: { type: 'integer', oneOf: [{ minimum: 10 }, { maximum: 0 }] } }, { one: 5 }))).toEqual([
      'spec.one: Invalid value: 5: "spec.one" must validate one and only one schema (oneOf). Found none valid',
    ]);
    expect(messages(check(properties, { any: 'carl', one: 5, not: 'forbidden', all: 'y' }))).toEqual([
      'spec.any: Invalid value: "carl": "spec.any" must validate at least one schema (anyOf)',
      'spec.one: Invalid value: 5: "spec.one" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      'spec.not: Invalid value: "forbidden": "spec.not" must not validate the schema (not)',
      'spec.all: Invalid value: "y": spec.all in body should be at least 2 chars long',
      `spec.all: Invalid value: "y": spec.all in body should match '^x'`,
    ]);
  });

  it('does not validate the root metadata, and accepts embedded resources', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 2 } } },
        spec: {
          type: 'object',
          properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
        },
      },
    };
    const compiled = compileSchema(schema);
    expect(compiled.validate({ metadata: { name: 'ab', labels: { a: 'b' }, annotations: 3 }, spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } } })).toEqual([]);
    // …except for the restrictions a CRD may put on metadata.name and metadata.generateName.
    expect(messages(compiled.validate({ metadata: { name: 'a-long-name' } }))).toEqual(['metadata.name: Too long: may not be longer than 2']);
    expect(messages(compiled.validate({ spec: { template: 'pod' } }))).toEqual([
      'spec.template: Invalid value: "string": spec.template in body must be of type object: "string"',
    ]);
  });

  it('reports the same paths for repeated subschemas (compiled once and shared)', () => {
    const port = (): JSONSchemaProps => ({
      type: 'object',
      required: ['name', 'port'],
      properties: {
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 15 },
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        protocol: { type: 'string', enum: ['TCP', 'UDP', 'SCTP'] },
      },
    });
    const properties: Record<string, JSONSchemaProps> = {
      primary: port(),
      extra: { type: 'array', items: port() },
      byName: { type: 'object', additionalProperties: port() },
      either: { type: 'object', anyOf: [{ required: ['a'] }, { required: ['b'] }], properties: { a: port(), b: port() } },
    };
    expect(check(properties, { primary: { name: 'http', port: 80 }, extra: [{ name: 'https', port: 443 }], byName: { dns: { name: 'dns', port: 53, protocol: 'UDP' } }, either: { b: { name: 'b', port: 1 } } })).toEqual([]);
    expect(
      messages(check(properties, { primary: { name: 'HTTP', port: 0 }, extra: [{ name: 'ok', port: 1 }, { port: 70000 }], byName: { x: { name: 'x', port: 1, protocol: 'ICMP' } }, either: {} })),
    ).toEqual([
      `spec.primary.name: Invalid value: "HTTP": spec.primary.name in body should match '^[a-z]+$'`,
      'spec.primary.port: Invalid value: 0: spec.primary.port in body should be greater than or equal to 1',
      'spec.extra[1].name: Required value',
      'spec.extra[1].port: Invalid value: 70000: spec.extra[1].port in body should be less than or equal to 65535',
      'spec.byName.x.protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      'spec.either: Invalid value: {}: "spec.either" must validate at least one schema (anyOf)',
    ]);
  });

  it('never throws on non-object input', () => {
    const compiled = compileSchema(withSpec({ a: { type: 'string' } }));
    expect(compiled.validate('hello')).toEqual([
      { field: '', type: 'FieldValueTypeInvalid', message: 'Invalid value: "string": body must be of type object: "string"', value: 'hello' },
    ]);
    expect(compiled.validate(undefined)).toHaveLength(1);
  });

  it('throws OLM_SCHEMA_INVALID naming the problem for schemas that cannot compile', () => {
    expect(() => compileSchema(withSpec({ a: { type: 'string', pattern: '([a-z' } }))).toThrow(
      expect.objectContaining({ code: 'OLM_SCHEMA_INVALID', path: 'properties[spec].properties[a].pattern' }),
    );
    expect(() => compileSchema(withSpec({ a: { type: 'integer', minimum: 'one' as unknown as number } }))).toThrow(
      expect.objectContaining({ code: 'OLM_SCHEMA_INVALID', message: expect.stringContaining('properties[spec].properties[a].minimum: must be number') }),
    );
    expect(() => compileSchema(withSpec({ a: { type: 'strin' } }))).toThrow(expect.objectContaining({ code: 'OLM_SCHEMA_INVALID' }));
    // A broken subschema that appears twice is still located where it is written.
    const broken = (): JSONSchemaProps => ({
      type: 'object',
      properties: {
        host: { type: 'string', pattern: '^[a-z0-9.-]+$', maxLength: 253 },
        protocol: { type: 'string', enum: ['TCP', 'UDP', 'SCTP'] },
        port: { type: 'integer', maximum: 'big' as unknown as number },
      },
    });
    expect(() => compileSchema(withSpec({ first: broken(), second: broken() }))).toThrow(
      expect.objectContaining({ code: 'OLM_SCHEMA_INVALID', path: 'properties[spec].properties[first].properties[port].maximum' }),
    );
    expect(() => compileSchema(withSpec({ a: 'nope' as unknown as JSONSchemaProps }))).toThrow(
      expect.objectContaining({ code: 'OLM_SCHEMA_INVALID', message: expect.stringContaining('properties[spec].properties[a] must be a schema object') }),
    );
    expect(() => compileSchema(null as unknown as JSONSchemaProps)).toThrow(expect.objectContaining({ code: 'OLM_SCHEMA_INVALID' }));
  });
});

describe('compileSchema: patterns are RE2, as in Kubernetes', () => {
  it('accepts Go syntax JavaScript lacks: inline flags, Unicode and POSIX classes, \\A \\z, escaped punctuation', () => {
    const properties: Record<string, JSONSchemaProps> = {
      flag: { type: 'string', pattern: '(?i)^(on|off)$' },
      word: { type: 'string', pattern: '^\\pL+$' },
      posix: { type: 'string', pattern: '^[[:alpha:]]+$' },
      whole: { type: 'string', pattern: '\\Aabc\\z' },
      port: { type: 'string', pattern: '^[a-z]+\\:[0-9]+$' },
    };
    expect(check(properties, { flag: 'ON', word: 'héllo', posix: 'abc', whole: 'abc', port: 'http:80' })).toEqual([]);
    expect(messages(check(properties, { flag: 'maybe', word: 'h3llo', posix: 'ab1', whole: 'abc\n', port: 'http80' }))).toEqual([
      "spec.flag: Invalid value: \"maybe\": spec.flag in body should match '(?i)^(on|off)$'",
      "spec.word: Invalid value: \"h3llo\": spec.word in body should match '^\\pL+$'",
      "spec.posix: Invalid value: \"ab1\": spec.posix in body should match '^[[:alpha:]]+$'",
      "spec.whole: Invalid value: \"abc\\n\": spec.whole in body should match '\\Aabc\\z'",
      "spec.port: Invalid value: \"http80\": spec.port in body should match '^[a-z]+\\:[0-9]+$'",
    ]);
  });

  it('refuses JavaScript-only syntax (lookaround, backreferences) naming the field, with Go\'s message', () => {
    expect(() => compileSchema(withSpec({ a: { type: 'string', pattern: '^(?=x)' } }))).toThrow(
      expect.objectContaining({
        code: 'OLM_SCHEMA_INVALID',
        path: 'properties[spec].properties[a].pattern',
        message: 'cannot compile schema: properties[spec].properties[a].pattern is not a valid regular expression (error parsing regexp: invalid or unsupported Perl syntax: `(?=`)',
      }),
    );
    expect(() => compileSchema(withSpec({ b: { type: 'string', pattern: '(a)\\1' } }))).toThrow(expect.objectContaining({ path: 'properties[spec].properties[b].pattern' }));
  });

  it('validates values against a catastrophically backtracking pattern in linear time', () => {
    const compiled = compileSchema(withSpec({ name: { type: 'string', pattern: '^(a+)+$' }, digits: { type: 'string', pattern: '^[0-9]*[0-9]*[0-9]*x' } }));
    const errors = compiled.validate({ spec: { name: `${'a'.repeat(50_000)}!`, digits: `${'0'.repeat(50_000)}!` } });
    expect(errors.map((error) => error.field)).toEqual(['spec.name', 'spec.digits']);
    expect(compiled.validate({ spec: { name: 'a'.repeat(50_000), digits: '0x' } })).toEqual([]);
  });

  it('keeps different patterns apart (ajv shares compiled patterns by their text)', () => {
    const compiled = compileSchema(withSpec({ a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^b$' } }));
    expect(compiled.validate({ spec: { a: 'a', b: 'b' } })).toEqual([]);
    expect(compiled.validate({ spec: { a: 'b', b: 'a' } }).map((error) => error.field)).toEqual(['spec.a', 'spec.b']);
  });
});

import { describe, expect, it } from 'vitest';
import { checkStructural } from './check-structural.js';
import type { JSONSchemaProps } from './json-schema-props.js';

const P = 'spec.validation.openAPIV3Schema';
const withSpec = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });

describe('checkStructural', () => {
  it('accepts a typical structural schema', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          required: ['size'],
          properties: {
            size: { type: 'integer', minimum: 1, default: 3 },
            port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            anything: { 'x-kubernetes-preserve-unknown-fields': true },
            template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
            ports: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
            },
            mode: { type: 'string', anyOf: [{ enum: ['a'] }, { pattern: '^b' }] },
          },
        },
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    expect(checkStructural(schema)).toEqual([]);
  });

  it('reports missing types with the level-specific message', () => {
    expect(checkStructural({ properties: { spec: { type: 'object', properties: { a: {} } } } })).toEqual([
      `${P}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.type: Required value: must not be empty at the root`,
    ]);
    expect(checkStructural(withSpec({ type: 'array', items: {} }))).toEqual([
      `${P}.properties[spec].items.type: Required value: must not be empty for specified array items`,
    ]);
    expect(checkStructural(withSpec({ properties: {} }))).toEqual([
      `${P}.properties[spec].type: Required value: must not be empty for specified object fields`,
    ]);
  });

  it('honours a custom path prefix', () => {
    expect(checkStructural(withSpec({}), { path: 'spec.versions[0].schema.openAPIV3Schema' })).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ]);
  });

  it('forbids additionalProperties next to properties, but allows additionalProperties: true', () => {
    expect(checkStructural(withSpec({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }))).toEqual([
      `${P}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
    ]);
    expect(checkStructural(withSpec({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }))).toEqual([
      `${P}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
    ]);
    expect(checkStructural(withSpec({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }))).toEqual([]);
  });

  it('forbids additionalProperties at the root and a non-object root', () => {
    expect(checkStructural({ type: 'object', additionalProperties: { type: 'string' } })).toEqual([
      `${P}.additionalProperties: Forbidden: must not be used at the root`,
    ]);
    expect(checkStructural({ type: 'string' })).toEqual([`${P}.type: Invalid value: "string": must be object at the root`]);
  });

  it('requires items for arrays and rejects tuple items', () => {
    expect(checkStructural(withSpec({ type: 'array' }))).toEqual([`${P}.properties[spec].items: Required value: must be specified`]);
    expect(checkStructural(withSpec({ type: 'array', items: [{ type: 'string' }] as unknown as JSONSchemaProps }))).toContain(
      `${P}.properties[spec].items: Forbidden: items must be a schema object and not an array`,
    );
  });

  it('rejects unsupported keywords and types', () => {
    const reasons = checkStructural(
      withSpec({ type: 'object', $ref: '#/definitions/x', patternProperties: { '^a': { type: 'string' } }, definitions: {}, properties: { n: { type: 'null' }, t: { type: 'float' } } }),
    );
    expect(reasons).toEqual([
      `${P}.properties[spec].$ref: Forbidden: $ref is not supported`,
      `${P}.properties[spec].definitions: Forbidden: definitions is not supported`,
      `${P}.properties[spec].patternProperties: Forbidden: patternProperties is not supported`,
      `${P}.properties[spec].properties[n].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      `${P}.properties[spec].properties[t].type: Unsupported value: "float": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    ]);
  });

  it('rejects uniqueItems, preserve-unknown-fields false and bad patterns', () => {
    expect(
      checkStructural(
        withSpec({
          type: 'object',
          properties: {
            a: { type: 'array', uniqueItems: true, items: { type: 'string' } },
            b: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
            c: { type: 'string', pattern: '([a-z' },
          },
        }),
      ),
    ).toEqual([
      `${P}.properties[spec].properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${P}.properties[spec].properties[b].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      expect.stringMatching(/^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[c\]\.pattern: Invalid value: "\(\[a-z": must be a valid regular expression, but isn't: /),
    ]);
  });

  it('checks patterns with Go RE2 syntax, as the API server does', () => {
    const reasons = checkStructural(
      withSpec({
        type: 'object',
        properties: {
          lookahead: { type: 'string', pattern: 'a(?=b)' },
          backreference: { type: 'string', pattern: '(a)\\1' },
          go: { type: 'string', pattern: '(?i)^\\pL[[:alnum:]]*\\z' },
        },
      }),
    );
    expect(reasons).toEqual([
      `${P}.properties[spec].properties[backreference].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\1\``,
      `${P}.properties[spec].properties[lookahead].pattern: Invalid value: "a(?=b)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``,
    ]);
  });

  it('forbids structure inside value validations (allOf/anyOf/oneOf/not)', () => {
    const reasons = checkStructural(
      withSpec({
        type: 'object',
        properties: { a: { type: 'string' } },
        anyOf: [{ type: 'object', description: 'x', nullable: true, default: {} }],
        not: { 'x-kubernetes-preserve-unknown-fields': true, properties: { metadata: {} } },
      }),
    );
    expect(reasons).toEqual([
      `${P}.properties[spec].anyOf[0].default: Forbidden: must be undefined to be structural`,
      `${P}.properties[spec].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${P}.properties[spec].anyOf[0].nullable: Forbidden: must be false to be structural`,
      `${P}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[spec].not.properties[metadata]: Forbidden: must not be specified in a nested context`,
      `${P}.properties[spec].not.x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
      `${P}.properties[spec].properties[metadata]: Required value: because it is defined in ${P}.properties[spec].not.properties[metadata]`,
    ]);
  });

  it('allows the two int-or-string patterns with types inside', () => {
    const anyOf = [{ type: 'integer' }, { type: 'string' }];
    expect(checkStructural(withSpec({ 'x-kubernetes-int-or-string': true, anyOf }))).toEqual([]);
    expect(checkStructural(withSpec({ 'x-kubernetes-int-or-string': true, allOf: [{ anyOf }, { pattern: '^\\d+%?$' }] }))).toEqual([]);
    expect(checkStructural(withSpec({ 'x-kubernetes-int-or-string': true, oneOf: anyOf }))).toEqual([
      `${P}.properties[spec].oneOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[spec].oneOf[1].type: Forbidden: must be empty to be structural`,
    ]);
  });

  it('requires fields used in value validations to be specified structurally', () => {
    expect(checkStructural(withSpec({ type: 'object', properties: { a: { type: 'string' } }, oneOf: [{ required: ['a'] }, { properties: { b: { pattern: 'x' } } }] }))).toEqual([
      `${P}.properties[spec].properties[b]: Required value: because it is defined in ${P}.properties[spec].oneOf[1].properties[b]`,
    ]);
    expect(checkStructural(withSpec({ type: 'object', properties: { a: { type: 'string' } }, allOf: [{ properties: { a: { items: { pattern: 'x' } } } }] }))).toEqual([
      `${P}.properties[spec].properties[a].items: Required value: because it is defined in ${P}.properties[spec].allOf[0].properties[a].items`,
    ]);
  });

  it('checks the extensions: int-or-string, embedded resources, list and map types', () => {
    const reasons = checkStructural(
      withSpec({
        type: 'object',
        properties: {
          both: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
          emb: { type: 'string', 'x-kubernetes-embedded-resource': true },
          empty: { type: 'object', 'x-kubernetes-embedded-resource': true },
          list: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'string' } },
          keys: { type: 'array', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'object', properties: { a: { type: 'string' } } } },
          wrong: { type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } },
          map: { type: 'string', 'x-kubernetes-map-type': 'granular' },
        },
      }),
    );
    expect(reasons).toEqual([
      `${P}.properties[spec].properties[both].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      `${P}.properties[spec].properties[emb].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[spec].properties[emb].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
      `${P}.properties[spec].properties[empty].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[spec].properties[keys].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
      `${P}.properties[spec].properties[list].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
      `${P}.properties[spec].properties[list].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${P}.properties[spec].properties[map].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
      `${P}.properties[spec].properties[wrong].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
    ]);
  });

  it('checks list-map keys: names of scalar item properties, without duplicates', () => {
    const item: JSONSchemaProps = { type: 'object', properties: { name: { type: 'string' }, spec: { type: 'object' } } };
    expect(
      checkStructural(
        withSpec({
          type: 'object',
          properties: {
            missing: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['id'], items: item },
            complex: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['spec'], items: item },
            twice: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'name'], items: item },
          },
        }),
      ),
    ).toEqual([
      `${P}.properties[spec].properties[complex].items.properties[spec].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `${P}.properties[spec].properties[missing].x-kubernetes-list-map-keys: Invalid value: ["id"]: entries must all be names of item properties`,
      `${P}.properties[spec].properties[twice].x-kubernetes-list-map-keys: Invalid value: ["name","name"]: must not contain duplicate entries`,
    ]);
  });

  it('requires embedded resource metadata to be an object, but does not restrict its fields', () => {
    const embedded = (metadata: JSONSchemaProps): JSONSchemaProps =>
      withSpec({ type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { metadata } } } });
    expect(checkStructural(embedded({ type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } } }))).toEqual([]);
    expect(checkStructural(embedded({ type: 'string' }))).toEqual([
      `${P}.properties[spec].properties[template].properties[metadata].type: Invalid value: "string": must be object`,
    ]);
  });

  it('restricts root metadata to name and generateName, and kind/apiVersion to strings', () => {
    expect(checkStructural({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } } })).toEqual([]);
    expect(checkStructural({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } })).toEqual([
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    expect(checkStructural({ type: 'object', properties: { kind: { type: 'integer' }, apiVersion: { type: 'string', default: 'x/v1' } } })).toEqual([
      `${P}.properties[apiVersion].default: Forbidden: must not be set in top-level apiVersion`,
      `${P}.properties[kind].type: Invalid value: "integer": must be string`,
    ]);
  });

  it('checks defaults against their own schema and for unknown fields', () => {
    expect(
      checkStructural(
        withSpec({
          type: 'object',
          properties: {
            size: { type: 'integer', minimum: 1, default: 'three' },
            low: { type: 'integer', minimum: 1, default: 0 },
            mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
            resources: { type: 'object', properties: { cpu: { type: 'string' } }, default: { cpu: 1, memory: '1Gi' } },
            none: { type: 'string', nullable: true, default: null },
          },
        }),
      ),
    ).toEqual([
      `${P}.properties[spec].properties[low].default: Invalid value: 0: ${P}.properties[spec].properties[low].default in body should be greater than or equal to 1`,
      `${P}.properties[spec].properties[resources].default.cpu: Invalid value: "integer": ${P}.properties[spec].properties[resources].default.cpu in body must be of type string: "integer"`,
      `${P}.properties[spec].properties[resources].default: Invalid value: {"cpu":1,"memory":"1Gi"}: must not have unknown fields: memory`,
      `${P}.properties[spec].properties[size].default: Invalid value: "string": ${P}.properties[spec].properties[size].default in body must be of type integer: "string"`,
    ]);
  });

  it('never throws on garbage', () => {
    expect(checkStructural(null as unknown as JSONSchemaProps)).toEqual([`${P}: Invalid value: null: must be an object (a JSONSchemaProps)`]);
    expect(checkStructural({ type: 'object', properties: { spec: 'string' as unknown as JSONSchemaProps, list: { type: 'array', items: 3 as unknown as JSONSchemaProps } } })).toEqual([
      `${P}.properties[list].items: Invalid value: 3: must be a schema object`,
      `${P}.properties[spec]: Invalid value: "string": must be a schema object`,
    ]);
  });
});

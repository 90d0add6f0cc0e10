import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.js';
import type { JSONSchemaProps } from './json-schema-props.js';
import { validateListTypes } from './list-types.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        namespaces: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        atomic: { type: 'array', items: { type: 'string' } },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
        },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
        },
        byName: { type: 'object', additionalProperties: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', 'x-kubernetes-preserve-unknown-fields': true } } },
      },
    },
  },
};

describe('validateListTypes', () => {
  it('accepts distinct items and ignores atomic lists', () => {
    expect(
      validateListTypes(schema, {
        spec: {
          namespaces: ['a', 'b'],
          atomic: ['x', 'x'],
          conditions: [{ type: 'Ready' }, { type: 'Upgradeable' }],
          ports: [
            { port: 53, protocol: 'TCP' },
            { port: 53, protocol: 'UDP' },
          ],
        },
      }),
    ).toEqual([]);
  });

  it('reports duplicates in sets and maps at the second occurrence', () => {
    expect(
      validateListTypes(schema, {
        spec: {
          namespaces: ['a', 'b', 'a'],
          conditions: [{ type: 'Ready', status: 'True' }, { type: 'Ready', status: 'False' }],
          ports: [
            { protocol: 'TCP', port: 53 },
            { port: 53, protocol: 'TCP' },
          ],
          byName: { x: [{ a: 1, b: 2 }, { b: 2, a: 1 }] },
        },
      }),
    ).toEqual([
      { field: 'spec.namespaces[2]', type: 'FieldValueDuplicate', message: 'Duplicate value: "a"', value: 'a' },
      { field: 'spec.conditions[1]', type: 'FieldValueDuplicate', message: 'Duplicate value: {"type":"Ready"}', value: { type: 'Ready' } },
      { field: 'spec.ports[1]', type: 'FieldValueDuplicate', message: 'Duplicate value: {"port":53,"protocol":"TCP"}', value: { port: 53, protocol: 'TCP' } },
      { field: 'spec.byName.x[1]', type: 'FieldValueDuplicate', message: 'Duplicate value: {"b":2,"a":1}', value: { b: 2, a: 1 } },
    ]);
  });

  it('is part of compiled validation, after schema errors, and never throws', () => {
    const compiled = compileSchema(schema);
    expect(compiled.validate({ spec: { namespaces: ['a', 'a', 3] } }).map((error) => `${error.field}: ${error.message}`)).toEqual([
      'spec.namespaces[2]: Invalid value: "integer": spec.namespaces[2] in body must be of type string: "integer"',
      'spec.namespaces[1]: Duplicate value: "a"',
    ]);
    expect(validateListTypes(schema, { spec: { namespaces: 'a', conditions: [null, 3] } })).toEqual([]);
    expect(validateListTypes(schema, null)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { defaultObject } from './defaults.js';
import type { JSONSchemaProps } from './json-schema-props.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        mode: { type: 'string', default: 'Automatic' },
        optional: { type: 'string', nullable: true, default: 'x' },
        strict: { type: 'string' },
        resources: { type: 'object', default: { limits: {} }, properties: { limits: { type: 'object', properties: { cpu: { type: 'string', default: '100m' } } } } },
        ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } } },
        tiers: { type: 'object', additionalProperties: { type: 'object', properties: { weight: { type: 'integer', default: 10 } } } },
      },
    },
  },
};

describe('defaultObject', () => {
  it('fills absent fields, recursing into present and defaulted objects, arrays and maps', () => {
    const input = { apiVersion: 'x/v1', spec: { replicas: 3, ports: [{ name: 'http' }, { name: 'dns', protocol: 'UDP' }], tiers: { gold: {}, silver: { weight: 5 } } } };
    expect(defaultObject(schema, input)).toEqual({
      apiVersion: 'x/v1',
      spec: {
        replicas: 3,
        mode: 'Automatic',
        optional: 'x',
        resources: { limits: { cpu: '100m' } },
        ports: [
          { name: 'http', protocol: 'TCP' },
          { name: 'dns', protocol: 'UDP' },
        ],
        tiers: { gold: { weight: 10 }, silver: { weight: 5 } },
      },
    });
    expect(input.spec).not.toHaveProperty('mode');
  });

  it('defaults an absent object and then its fields', () => {
    expect(defaultObject(schema, {})).toEqual({ spec: { replicas: 1, mode: 'Automatic', optional: 'x', resources: { limits: { cpu: '100m' } } } });
  });

  it('replaces null in non-nullable fields by the default, drops it without default, keeps it when nullable', () => {
    expect(defaultObject(schema, { spec: { replicas: null, strict: null, optional: null } })).toEqual({
      spec: { replicas: 1, mode: 'Automatic', optional: null, resources: { limits: { cpu: '100m' } } },
    });
  });

  it('does not invent values for absent fields without defaults, and copies defaults', () => {
    const first = defaultObject(schema, { spec: {} }) as { spec: { resources: { limits: Record<string, string> } } };
    first.spec.resources.limits.cpu = 'changed';
    const second = defaultObject(schema, { spec: {} }) as { spec: { resources: { limits: Record<string, string> }; strict?: string } };
    expect(second.spec.resources.limits.cpu).toBe('100m');
    expect(second.spec).not.toHaveProperty('strict');
  });

  it('replaces null items of non-nullable arrays by the item default', () => {
    const list: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { ports: { type: 'array', items: { type: 'object', default: { protocol: 'TCP' }, properties: { protocol: { type: 'string' } } } } } } },
    };
    expect(defaultObject(list, { spec: { ports: [null, { protocol: 'UDP' }] } })).toEqual({ spec: { ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }] } });
  });

  it('never touches root metadata and never throws on scalars', () => {
    const withMeta: JSONSchemaProps = { type: 'object', properties: { metadata: { type: 'object', default: { name: 'x' } } } };
    expect(defaultObject(withMeta, {})).toEqual({});
    expect(defaultObject(schema, 42)).toBe(42);
    expect(defaultObject(schema, { spec: 'text' })).toEqual({ spec: 'text' });
  });
});

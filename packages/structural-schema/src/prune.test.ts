import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './json-schema-props.js';
import { pruneObject } from './prune.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        open: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } },
        },
        nested: { type: 'object', additionalProperties: { type: 'object', properties: { w: { type: 'integer' } } } },
      },
    },
  },
};

describe('pruneObject', () => {
  it('drops unknown fields everywhere and reports their paths', () => {
    const input = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', labels: { x: 'y' } },
      spec: { size: 1, foo: 'bar', items: [{ name: 'a', extra: 1 }, { name: 'b' }], nested: { k: { w: 1, drop: true } } },
      extraTop: true,
    };
    const result = pruneObject(schema, input);
    expect(result.unknownFields).toEqual(['spec.foo', 'spec.items[0].extra', 'spec.nested.k.drop', 'extraTop']);
    expect(result.object).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', labels: { x: 'y' } },
      spec: { size: 1, items: [{ name: 'a' }, { name: 'b' }], nested: { k: { w: 1 } } },
    });
    expect(input.spec.foo).toBe('bar');
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields but prunes inside known ones', () => {
    const result = pruneObject(schema, { spec: { config: { anything: { deep: [1, 2] }, known: { a: 'x', b: 'dropped' } } } });
    expect(result.object).toEqual({ spec: { config: { anything: { deep: [1, 2] }, known: { a: 'x' } } } });
    expect(result.unknownFields).toEqual(['spec.config.known.b']);
  });

  it('keeps everything for additionalProperties: true and map values', () => {
    const result = pruneObject(schema, { spec: { open: { a: 'x', b: { c: 1 } }, labels: { one: '1', two: '2' } } });
    expect(result.unknownFields).toEqual([]);
    expect(result.object).toEqual({ spec: { open: { a: 'x', b: { c: 1 } }, labels: { one: '1', two: '2' } } });
  });

  it('keeps apiVersion/kind/metadata of embedded resources, pruning the rest', () => {
    const result = pruneObject(schema, {
      spec: { template: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 2, paused: true }, status: {} } },
    });
    expect(result.object).toEqual({ spec: { template: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 2 } } } });
    expect(result.unknownFields).toEqual(['spec.template.spec.paused', 'spec.template.status']);
  });

  it('keeps only ObjectMeta fields in metadata, at the root and in embedded resources', () => {
    const result = pruneObject(schema, {
      metadata: { name: 'w', labels: { a: 'b' }, spec: { selector: {} } },
      spec: { template: { metadata: { name: 'p', annotations: {}, bogus: 1 } } },
    });
    expect(result.unknownFields).toEqual(['metadata.spec', 'spec.template.metadata.bogus']);
    expect(result.object).toEqual({ metadata: { name: 'w', labels: { a: 'b' } }, spec: { template: { metadata: { name: 'p', annotations: {} } } } });
  });

  it('prunes apiVersion/kind/metadata when they are not at a resource root', () => {
    const result = pruneObject(schema, { spec: { items: [{ name: 'a', kind: 'x', metadata: {} }] } });
    expect(result.unknownFields).toEqual(['spec.items[0].kind', 'spec.items[0].metadata']);
  });

  it('prunes objects given for scalar fields as Kubernetes does, leaving the type error to validation, and never throws', () => {
    expect(pruneObject(schema, { spec: { size: { a: 1 }, items: 'x' } })).toEqual({ object: { spec: { size: {}, items: 'x' } }, unknownFields: ['spec.size.a'] });
    expect(pruneObject(schema, 'text')).toEqual({ object: 'text', unknownFields: [] });
    expect(pruneObject(schema, null)).toEqual({ object: null, unknownFields: [] });
  });

  it('prunes inside arrays of arrays and keeps preserved items whole', () => {
    const nested: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            matrix: { type: 'array', items: { type: 'array', items: { type: 'object', properties: { v: { type: 'integer' } } } } },
            raw: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    };
    const result = pruneObject(nested, { spec: { matrix: [[{ v: 1, x: 2 }], [{ v: 3 }]], raw: [{ any: { thing: 1 } }] } });
    expect(result.unknownFields).toEqual(['spec.matrix[0][0].x']);
    expect(result.object).toEqual({ spec: { matrix: [[{ v: 1 }], [{ v: 3 }]], raw: [{ any: { thing: 1 } }] } });
  });

  it('keeps everything with a root that preserves unknown fields', () => {
    const result = pruneObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, { spec: { a: 1 }, b: 2 });
    expect(result).toEqual({ object: { spec: { a: 1 }, b: 2 }, unknownFields: [] });
  });
});

import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.js';
import { validateEmbeddedResources } from './embedded-resources.js';
import type { JSONSchemaProps } from './json-schema-props.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        objects: { type: 'array', items: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
      },
    },
  },
};

const messages = (errors: { field: string; message: string }[]) => errors.map((error) => `${error.field}: ${error.message}`);

describe('validateEmbeddedResources', () => {
  it('accepts embedded resources with apiVersion and kind (metadata optional)', () => {
    expect(
      validateEmbeddedResources(schema, {
        spec: { template: { apiVersion: 'v1', kind: 'Pod' }, objects: [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } }] },
      }),
    ).toEqual([]);
  });

  it('requires apiVersion and kind and checks their form', () => {
    expect(
      messages(
        validateEmbeddedResources(schema, {
          spec: { template: { metadata: {} }, objects: [{ apiVersion: 3, kind: '' }, { apiVersion: 'a/b/c', kind: 'Not_A_Kind' }] },
        }),
      ),
    ).toEqual([
      'spec.template.apiVersion: Required value: must not be empty',
      'spec.template.kind: Required value: must not be empty',
      'spec.objects[0].apiVersion: Invalid value: 3: must be a string',
      'spec.objects[0].kind: Invalid value: "": must not be empty',
      'spec.objects[1].apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      expect.stringMatching(/^spec\.objects\[1\]\.kind: Invalid value: "Not_A_Kind": may have mixed case, but should otherwise match: a DNS-1035 label/),
    ]);
  });

  it('runs as part of compiled validation and never throws', () => {
    expect(messages(compileSchema(schema).validate({ spec: { template: { kind: 'Pod' } } }))).toEqual(['spec.template.apiVersion: Required value: must not be empty']);
    expect(validateEmbeddedResources(schema, { spec: { template: 'x', objects: [null] } })).toEqual([]);
  });
});

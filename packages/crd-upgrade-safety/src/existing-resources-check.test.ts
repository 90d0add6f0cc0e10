import type { JSONSchemaProps } from '@olm/structural-schema';
import { describe, expect, it } from 'vitest';
import type { CrdView } from './crd-view.js';
import { checkCrdUpgrade, type CustomResource } from './existing-resources-check.js';

const schema = (properties: Record<string, JSONSchemaProps>, required: string[] = []): { openAPIV3Schema: JSONSchemaProps } => ({
  openAPIV3Schema: {
    type: 'object',
    properties: { spec: { type: 'object', properties, ...(required.length ? { required } : {}) } },
  },
});

const crd = (versions: CrdView['spec']['versions'], storedVersions?: string[], conversion?: string): CrdView => ({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets' },
    versions,
    ...(conversion ? { conversion: { strategy: conversion } } : {}),
  },
  ...(storedVersions ? { status: { storedVersions } } : {}),
});

const widget = (name: string, spec: Record<string, unknown>): CustomResource => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec,
});

const existing = (objects: Record<string, CustomResource[]>) => async (version: string) => objects[version] ?? [];

describe('CRD upgrade safety', () => {
  const v1 = crd([{ name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'integer' } }) }], ['v1']);

  it('allows an upgrade whose schema accepts every existing object', async () => {
    const next = crd([{ name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'integer', minimum: 1 } }) }]);
    const verdict = await checkCrdUpgrade(v1, next, existing({ v1: [widget('w1', { size: 3 })] }));
    expect(verdict).toEqual({ warnings: [] });
  });

  it('refuses an upgrade that would make an existing object invalid, naming the object and field', async () => {
    const next = crd([
      { name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'integer', maximum: 5 }, color: { type: 'string' } }, ['color']) },
    ]);
    const verdict = await checkCrdUpgrade(v1, next, existing({ v1: [widget('ok', { size: 1, color: 'red' }), widget('big', { size: 9 })] }));
    expect(verdict.error).toMatch(
      /^error validating existing CRs against new CRD's schema for "widgets\.example\.com": error validating example\.com\/v1, Kind=Widget "default\/big": updated validation is too restrictive: \[/,
    );
    expect(verdict.error).toContain('spec.size');
    expect(verdict.error).toContain('spec.color');
  });

  it('names a cluster-scoped object without a namespace', async () => {
    const next = crd([{ name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'string' } }) }]);
    const clusterWide = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'global' }, spec: { size: 3 } };
    const verdict = await checkCrdUpgrade(v1, next, existing({ v1: [clusterWide] }));
    expect(verdict.error).toContain('error validating example.com/v1, Kind=Widget "global": updated validation is too restrictive: ');
  });

  it("only warns, in upstream's words, when the new CRD converts through a webhook, and still checks stored versions", async () => {
    const next = crd([{ name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'string' } }) }], undefined, 'Webhook');
    const verdict = await checkCrdUpgrade(v1, next, existing({ v1: [widget('w1', { size: 3 }), widget('w2', { size: 4 })] }));
    expect(verdict.error).toBeUndefined();
    expect(verdict.warnings).toHaveLength(1);
    const [warning] = verdict.warnings;
    expect(warning).toMatch(
      /^Validation of existing CRs against the new CRD's schema failed, but a webhook conversion strategy was specified in the new CRD\.\nThe new webhook will only start after the bundle is upgraded, so we must assume that it will successfully convert existing CRs to a format that would have passed validation\.\n\nCRD: "widgets\.example\.com"\nValidation Error: error validating example\.com\/v1, Kind=Widget "default\/w1": updated validation is too restrictive: .*spec\.size.*\n$/,
    );
    const dropping = crd([{ name: 'v2', served: true, storage: true, schema: schema({}) }], undefined, 'Webhook');
    expect((await checkCrdUpgrade(v1, dropping, existing({ v1: [widget('w1', { size: 3 })] }))).error).toMatch(/^risk of data loss updating/);
  });

  it('reports invalid objects before a dropped stored version, as upstream checks them first', async () => {
    const twoVersions = crd(
      [
        { name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'integer' } }) },
        { name: 'v1beta1', served: true, storage: false, schema: schema({ size: { type: 'integer' } }) },
      ],
      ['v1beta1', 'v1'],
    );
    const next = crd([{ name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'string' } }) }]);
    const verdict = await checkCrdUpgrade(twoVersions, next, existing({ v1: [widget('w1', { size: 3 })] }));
    expect(verdict.error).toMatch(/^error validating existing CRs against new CRD's schema/);
  });

  it('skips versions the new CRD no longer serves', async () => {
    const next = crd(
      [
        { name: 'v1', served: false, storage: false, schema: schema({ size: { type: 'string' } }) },
        { name: 'v2', served: true, storage: true, schema: schema({}) },
      ],
    );
    const verdict = await checkCrdUpgrade(v1, next, existing({ v1: [widget('w1', { size: 3 })] }));
    expect(verdict).toEqual({ warnings: [] });
  });

  it('refuses to drop a stored version', async () => {
    const next = crd([{ name: 'v2', served: true, storage: true, schema: schema({}) }]);
    const verdict = await checkCrdUpgrade(v1, next, existing({}));
    expect(verdict.error).toBe(
      'risk of data loss updating "widgets.example.com": new CRD removes version v1 that is listed as a stored version on the existing CRD',
    );
  });
  it('refuses to remove a served version while objects exist, and allows it once unserved or unused', async () => {
    const served = crd(
      [
        { name: 'v1', served: true, storage: false, schema: schema({}) },
        { name: 'v2', served: true, storage: true, schema: schema({}) },
      ],
      ['v2'],
    );
    const withoutV1 = crd([{ name: 'v2', served: true, storage: true, schema: schema({}) }]);
    const inUse = await checkCrdUpgrade(served, withoutV1, existing({ v1: [widget('w1', {}), widget('w2', {})], v2: [widget('w1', {}), widget('w2', {})] }));
    expect(inUse.error).toBe(
      'not allowing CRD (widgets.example.com) update with unincluded version v1: it is served and 2 existing custom resources can be read in it; set served: false on v1 in one upgrade and remove it in a later one',
    );
    expect(await checkCrdUpgrade(served, withoutV1, existing({}))).toEqual({ warnings: [] });
    const unserved = crd(
      [
        { name: 'v1', served: false, storage: false, schema: schema({}) },
        { name: 'v2', served: true, storage: true, schema: schema({}) },
      ],
      ['v2'],
    );
    expect(await checkCrdUpgrade(unserved, withoutV1, existing({ v2: [widget('w1', {})] }))).toEqual({ warnings: [] });
  });

  it('checks existing objects against a catastrophically backtracking pattern in linear time', async () => {
    const next = crd([{ name: 'v1', served: true, storage: true, schema: schema({ name: { type: 'string', pattern: '^(a+)+$' } }) }]);
    const hostile = `${'a'.repeat(34)}!`;
    const verdict = await checkCrdUpgrade(v1, next, existing({ v1: [widget('fine', { name: 'a'.repeat(10_000) }), widget('hostile', { name: hostile })] }));
    expect(verdict.error).toBe(
      `error validating existing CRs against new CRD's schema for "widgets.example.com": error validating example.com/v1, Kind=Widget "default/hostile": updated validation is too restrictive: spec.name: Invalid value: "${hostile}": spec.name in body should match '^(a+)+$'`,
    );
  });

  it('reads patterns with Go RE2 syntax, as the API server does', async () => {
    const next = crd([{ name: 'v1', served: true, storage: true, schema: schema({ name: { type: 'string', pattern: '(?i)^[[:alpha:]]+\\z' } }) }]);
    expect(await checkCrdUpgrade(v1, next, existing({ v1: [widget('w1', { name: 'Abc' })] }))).toEqual({ warnings: [] });
  });

  it('refuses a new schema whose pattern Go refuses, naming the field', async () => {
    const next = crd([{ name: 'v1', served: true, storage: true, schema: schema({ name: { type: 'string', pattern: '^a(?=b)' } }) }]);
    await expect(checkCrdUpgrade(v1, next, existing({ v1: [widget('w1', { name: 'ab' })] }))).rejects.toThrow(
      expect.objectContaining({
        code: 'OLM_SCHEMA_INVALID',
        message: 'cannot compile schema: properties[spec].properties[name].pattern is not a valid regular expression (error parsing regexp: invalid or unsupported Perl syntax: `(?=`)',
      }),
    );
  });
});

import type { JSONSchemaProps } from '@olm/structural-schema';
import { describe, expect, it } from 'vitest';
import { checkCrdUpgrade, type CrdView, type CustomResource } from './crd-upgrade-safety.js';

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
      /^error validating existing CRs against new CRD's schema for "widgets\.example\.com": error validating example\.com\/v1, Kind=Widget "big": updated validation is too restrictive: \[/,
    );
    expect(verdict.error).toContain('spec.size');
    expect(verdict.error).toContain('spec.color');
  });

  it('only warns when the new CRD converts through a webhook', async () => {
    const next = crd([{ name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'string' } }) }], undefined, 'Webhook');
    const verdict = await checkCrdUpgrade(v1, next, existing({ v1: [widget('w1', { size: 3 })] }));
    expect(verdict.error).toBeUndefined();
    expect(verdict.warnings).toHaveLength(1);
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
});

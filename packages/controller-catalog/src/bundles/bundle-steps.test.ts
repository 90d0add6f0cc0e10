import { fileURLToPath } from 'node:url';
import type { KubeObject } from '@olm/core';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { loadCatalog } from '@olm/registry';
import { describe, expect, it } from 'vitest';
import { orderSteps } from '../install-plans/install-plan-rules.js';
import { propertiesAnnotation, stepsFromBundle, subscriptionStep } from './bundle-steps.js';

const exampleCatalog = fileURLToPath(new URL('../../../../examples/catalog', import.meta.url));
const catalogRef = { name: 'acme-examples', namespace: 'olm' };

describe('steps from a bundle', async () => {
  const catalog = await loadCatalog(exampleCatalog);
  const bundle = catalog.bundle('acme-backup', 'acme-backup.v0.2.0')!;
  const steps = stepsFromBundle({
    bundleName: bundle.name,
    properties: bundle.properties,
    manifests: catalog.bundleObjects(bundle) as KubeObject[],
    namespace: 'acme',
    replaces: 'acme-backup.v0.1.0',
    catalog: catalogRef,
    rbac: createRbacGenerator(),
  });
  const manifest = (index: number) => JSON.parse(steps[index]!.resource.manifest!) as Record<string, any>;

  it('starts with the CSV, placed in the namespace with the resolved replaces and the properties annotation', () => {
    expect(steps[0]!.resource).toMatchObject({
      sourceName: 'acme-examples',
      sourceNamespace: 'olm',
      group: 'operators.coreos.com',
      version: 'v1alpha1',
      kind: 'ClusterServiceVersion',
      name: 'acme-backup.v0.2.0',
    });
    const csv = manifest(0);
    expect(csv.metadata.namespace).toBe('acme');
    expect(csv.spec.replaces).toBe('acme-backup.v0.1.0');
    const projected = JSON.parse(csv.metadata.annotations[propertiesAnnotation]).properties as Array<{ type: string }>;
    expect(projected.map((property) => property.type).sort()).toEqual(['olm.gvk', 'olm.gvk.required', 'olm.package']);
  });

  it('then the CRD and the RBAC for the operator service account, all Unknown and resolving this CSV', () => {
    expect(steps.map((step) => step.resource.kind)).toEqual([
      'ClusterServiceVersion',
      'CustomResourceDefinition',
      'ServiceAccount',
      'Role',
      'RoleBinding',
    ]);
    expect(steps.every((step) => step.status === 'Unknown' && step.resolving === 'acme-backup.v0.2.0')).toBe(true);
    const role = JSON.parse(steps.find((step) => step.resource.kind === 'Role')!.resource.manifest!);
    expect(role.metadata.namespace).toBe('acme');
    expect(role.rules).toContainEqual({ apiGroups: ['acme.example.com'], resources: ['databases'], verbs: ['get', 'list', 'watch'] });
    expect(orderSteps(steps).map((step) => step.resource.kind).slice(0, 2)).toEqual(['ClusterServiceVersion', 'CustomResourceDefinition']);
  });

  it('drops replaces for a fresh install', () => {
    const fresh = stepsFromBundle({
      bundleName: bundle.name,
      properties: bundle.properties,
      manifests: catalog.bundleObjects(bundle) as KubeObject[],
      namespace: 'acme',
      replaces: '',
      catalog: catalogRef,
      rbac: createRbacGenerator(),
    });
    expect(JSON.parse(fresh[0]!.resource.manifest!).spec.replaces).toBeUndefined();
  });

  it('refuses a bundle without a CSV manifest', () => {
    expect(() =>
      stepsFromBundle({
        bundleName: 'x.v1',
        properties: [],
        manifests: [],
        namespace: 'acme',
        replaces: '',
        catalog: catalogRef,
        rbac: createRbacGenerator(),
      }),
    ).toThrow(/has no ClusterServiceVersion among its manifests/);
  });

  it('names dependency Subscriptions after package, channel and catalog', () => {
    const step = subscriptionStep('acme', { package: 'acme-database', channel: 'stable', catalog: catalogRef, startingCSV: 'acme-database.v1.2.0' });
    expect(step.resource).toMatchObject({ kind: 'Subscription', name: 'acme-database-stable-acme-examples-olm' });
    expect(JSON.parse(step.resource.manifest!).spec).toEqual({
      source: 'acme-examples',
      sourceNamespace: 'olm',
      name: 'acme-database',
      channel: 'stable',
      startingCSV: 'acme-database.v1.2.0',
      installPlanApproval: 'Automatic',
    });
  });
});

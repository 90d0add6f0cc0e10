import type { KubeObject } from '@olm/core';
import { startTestCluster, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderRegistryV1Bundle, renderedObjects } from '../src/index.js';
import { exampleBundle } from './example-bundles.js';

const fieldManager = 'olm-v1-render-test';

describe('rendered objects applied to a real API server with server-side apply', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({ olmCrds: false, namespaces: ['acme-system', 'team-a'] });
  });
  afterAll(() => cluster?.stop());

  it('are accepted phase by phase and read back with their names, namespaces and owner labels', async () => {
    const { bundle, manifests } = await exampleBundle('acme-database', 'acme-database.v1.2.0');
    const rendered = renderRegistryV1Bundle({ bundle, manifests, installNamespace: 'acme-system', watchNamespace: 'team-a', extensionName: 'acme-database' });
    for (const phase of rendered.phases) {
      for (const object of phase.objects) await cluster.client.apply(object as KubeObject & { metadata: { name: string } }, { fieldManager, force: true });
    }
    for (const object of renderedObjects(rendered)) {
      const stored = (await cluster.client.get({ apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name!, namespace: object.metadata.namespace })) as KubeObject & Record<string, any>;
      expect(stored.metadata.labels).toMatchObject({ 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'acme-database' });
      expect(stored.metadata.namespace).toBe(object.metadata.namespace);
    }
    const role = renderedObjects(rendered).find((object) => object.kind === 'Role')!;
    const storedRole = (await cluster.client.get({ apiVersion: role.apiVersion, kind: 'Role', name: role.metadata.name!, namespace: 'team-a' })) as Record<string, any>;
    expect(storedRole.rules).toEqual((role as Record<string, any>).rules);
    const deployment = (await cluster.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'acme-database-operator', namespace: 'acme-system' })) as Record<string, any>;
    expect(deployment.spec.template.metadata.annotations['olm.targetNamespaces']).toBe('team-a');
  });
});

import { boot, kubeClient, provision } from '@olm/core';
import { loadCatalog, registryPlugin, startRegistryServer } from '@olm/registry';
import { describe, expect, it } from 'vitest';
import { createPackageServerPlugin } from '../src/index.js';
import { adminGet, eventually, exampleCatalogDir, grpcCatalogSource, startCluster, type Json } from './helpers.js';

describe('the packageserver plugin', () => {
  it('serves and registers the API once the kernel starts, and stops with it', async () => {
    const cluster = await startCluster();
    const registry = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port: 0 });
    try {
      await cluster.client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
      const kernel = await boot({
        // The registry plugin brings the catalog source types (grpc here) the packageserver reads catalogs through.
        plugins: [registryPlugin, createPackageServerPlugin({ globalNamespace: 'olm', register: { namespace: 'olm' } })],
        // The cluster's own client: the plugin shares it rather than building one.
        provide: [provision(kubeClient, cluster.client)],
      });
      expect(kernel.plugins.map((plugin) => plugin.id)).toEqual(['registry', 'packageserver']);
      const names = await eventually(async () => {
        const list = await cluster.client.request({ method: 'GET', path: '/apis/packages.operators.coreos.com/v1/namespaces/default/packagemanifests' }) as Json;
        return list.items.length === 3 ? list.items.map((item: Json) => item.metadata.name) : undefined;
      }, { timeoutMs: 15_000, message: 'the packages through the aggregated API' });
      expect(names).toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
      await kernel.stop();
      const after = await adminGet(cluster.server, '/apis/packages.operators.coreos.com/v1/namespaces/default/packagemanifests');
      expect(after.status).toBe(503);
    } finally {
      await registry.stop();
      await cluster.stop();
    }
  });
});

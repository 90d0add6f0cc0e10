import type { KubeClient } from '@olm/core';
import type { ApiServer } from '@olm/local-apiserver';
import { loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageServerApiServiceName, startPackageServer, waitForApiService } from '../src/index.js';
import { builtInSourceTypes, exampleCatalogDir, grpcCatalogSource, kubectlAvailable, kubectlFor, startCluster, type Json } from './helpers.js';

const hasKubectl = kubectlAvailable();

/**
 * What `olm up --data-dir` relies on across restarts: a packageserver registered with
 * `unregisterOnStop` leaves no APIService behind, and a new one (new port, new certificate)
 * re-registers over a stale registration and is served as soon as `waitForApiService` returns.
 */
describe('registering, unregistering and re-registering the APIService', () => {
  let cluster: { server: ApiServer; client: KubeClient; stop(): Promise<void> };
  let registry: RegistryServer;

  const apiService = () => cluster.client.find<Json>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: packageServerApiServiceName });
  const service = () => cluster.client.find<Json>({ apiVersion: 'v1', kind: 'Service', namespace: 'olm', name: 'packageserver-service' });
  const packageNames = async () =>
    ((await cluster.client.request({ method: 'GET', path: '/apis/packages.operators.coreos.com/v1/namespaces/default/packagemanifests' })) as Json).items.map((item: Json) => item.metadata.name);

  beforeAll(async () => {
    cluster = await startCluster();
    registry = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port: 0 });
    await cluster.client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
  });
  afterAll(async () => {
    await registry?.stop();
    await cluster?.stop();
  });

  it('waits until the group is served, and with unregisterOnStop removes the APIService and Service on stop', async () => {
    const server = await startPackageServer({ catalogSourceTypes: builtInSourceTypes, client: cluster.client, register: { namespace: 'olm', unregisterOnStop: true } });
    try {
      await server.waitForSync(30_000);
      await waitForApiService(cluster.client, { timeoutMs: 15_000 });
      expect((await apiService())?.status.conditions).toContainEqual(expect.objectContaining({ type: 'Available', status: 'True' }));
      expect(await packageNames()).toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
    } finally {
      await server.stop();
    }
    expect(await apiService()).toBeUndefined();
    expect(await service()).toBeUndefined();
  });

  it('re-registers over a stale registration (another port and certificate), leaving kubectl nothing to warn about', async () => {
    const first = await startPackageServer({ catalogSourceTypes: builtInSourceTypes, client: cluster.client, register: { namespace: 'olm' } });
    await first.stop(); // as a killed process would: the registration stays, pointing at a closed port
    expect((await apiService())?.spec.service.port).toBe(first.port);
    await expect(waitForApiService(cluster.client, { timeoutMs: 1500 })).rejects.toThrow(
      `APIService ${packageServerApiServiceName} did not become available within 1500 ms`,
    );

    const second = await startPackageServer({ catalogSourceTypes: builtInSourceTypes, client: cluster.client, register: { namespace: 'olm', unregisterOnStop: true } });
    try {
      expect(second.port).not.toBe(first.port);
      await second.waitForSync(30_000);
      await waitForApiService(cluster.client, { timeoutMs: 15_000 });
      const registered = await apiService();
      expect(registered?.spec.service.port).toBe(second.port);
      expect(Buffer.from(registered?.spec.caBundle, 'base64').toString()).toBe(second.caBundle);
      // Only the new port is listed: the stale one is gone.
      expect((await service())?.spec.ports.map((port: Json) => port.port)).toEqual([second.port]);
      expect(await packageNames()).toContain('acme-database');
      if (hasKubectl) {
        const kubectl = kubectlFor(cluster.server.kubeconfigPath);
        try {
          const result = await kubectl.run(['get', 'packagemanifests', '-n', 'default']);
          expect(result.stderr).toBe('');
          expect(result.code).toBe(0);
          expect(result.stdout).toMatch(/^acme-database\s/m);
        } finally {
          kubectl.close();
        }
      }
    } finally {
      await second.stop();
    }
  });
});

import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '@olm/controller-runtime';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { createRegistryClient } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogRevisionAnnotation, catalogSourceName, installOlmResources, serveCatalogs, watchCatalogs, type ServedCatalog } from '../src/local-olm.js';
import { exampleCatalogDirectory } from '../src/paths.js';

describe('local OLM set-up', () => {
  let server: ApiServer;
  let client: KubeClient;
  let directory: string;
  let served: ServedCatalog[] = [];

  beforeAll(async () => {
    server = await startApiServer({ port: 0 });
    client = new KubeClient({ kubeconfig: server.kubeconfig });
    directory = join(await mkdtemp(join(tmpdir(), 'olm-catalog-')), 'My Catalog');
    await cp(exampleCatalogDirectory, directory, { recursive: true });
  });
  afterAll(async () => {
    await Promise.all(served.map((catalog) => catalog.server.stop({ graceMs: 0 })));
    client.close();
    await server.stop();
    await rm(directory, { recursive: true, force: true });
  });

  it('names CatalogSources after their directory', () => {
    expect(catalogSourceName('/tmp/x/My Catalog')).toBe('my-catalog');
    expect(catalogSourceName('./certified-operators-v4.18')).toBe('certified-operators-v4-18');
  });

  it('installs CRDs and namespaces, serves a catalog, and republishes it when its files change', async () => {
    await installOlmResources(client, { namespace: 'olm' });
    await installOlmResources(client, { namespace: 'olm' }); // idempotent
    served = await serveCatalogs(client, [{ name: 'mine', directory }], 'olm');
    const registry = createRegistryClient(served[0]!.address);
    const reports: string[] = [];
    const watcher = watchCatalogs(client, served, 'olm', (text) => reports.push(text), 100);
    try {
      expect((await registry.listPackages()).sort()).toEqual([
        'acme-backup',
        'acme-database',
        'acme-monitoring',
      ]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await rm(join(directory, 'acme-monitoring'), { recursive: true });
      await expect.poll(async () => (await registry.listPackages()).length, { timeout: 10_000 }).toBe(2);
      const source = await client.get<{ metadata: { annotations?: Record<string, string> } }>({
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'CatalogSource',
        name: 'mine',
        namespace: 'olm',
      });
      expect(source.metadata.annotations?.[catalogRevisionAnnotation]).toBeTruthy();

      const file = join(directory, 'acme-backup', 'catalog.yaml');
      await writeFile(file, `${await readFile(file, 'utf8')}\n---\nschema: olm.bundle\n`);
      await expect.poll(() => reports.join(''), { timeout: 10_000 }).toContain('does not load, still serving the previous content');
      expect((await registry.listPackages()).length).toBe(2);
    } finally {
      watcher.stop();
      registry.close();
    }
  });
});

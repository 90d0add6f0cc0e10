import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CachedObject } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runControllers, type RunOptions } from '../src/commands/run.js';
import { installOlmResources, serveCatalogs, type ServedCatalog } from '../src/local-olm.js';
import { exampleCatalogDirectory } from '../src/paths.js';
import { runCliCaptured } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

describe('olm run --watch-namespaces', () => {
  let server: ApiServer;
  let client: KubeClient;
  let kubeconfig: string;
  let catalogs: ServedCatalog[] = [];

  const subscription = (namespace: string) =>
    client.find<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', namespace, name: 'acme-database' });

  beforeAll(async () => {
    server = await startApiServer({ port: 0 });
    kubeconfig = join(await mkdtemp(join(tmpdir(), 'olm-watch-')), 'kubeconfig');
    await writeFile(kubeconfig, server.kubeconfig);
    client = new KubeClient({ kubeconfig: server.kubeconfig });
    await installOlmResources(client, { namespace: 'olm' });
    for (const namespace of ['watched', 'unwatched']) {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } as Json);
      await client.create({
        apiVersion: 'operators.coreos.com/v1',
        kind: 'OperatorGroup',
        metadata: { name: namespace, namespace },
        spec: { targetNamespaces: [namespace] },
      } as Json);
    }
    // Each namespace has its own catalog: only the watched one may be read.
    catalogs = [
      ...(await serveCatalogs(client, [{ name: 'acme-examples', directory: exampleCatalogDirectory }], 'watched')),
      ...(await serveCatalogs(client, [{ name: 'acme-examples', directory: exampleCatalogDirectory }], 'unwatched')),
    ];
    for (const namespace of ['watched', 'unwatched']) {
      await client.create({
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'Subscription',
        metadata: { name: 'acme-database', namespace },
        spec: { name: 'acme-database', channel: 'stable', source: 'acme-examples', sourceNamespace: namespace },
      } as Json);
    }
  });
  afterAll(async () => {
    await Promise.all(catalogs.map((catalog) => catalog.server.stop({ graceMs: 0 })));
    client?.close();
    await server?.stop();
    await rm(join(kubeconfig, '..'), { recursive: true, force: true });
  });

  it('reconciles only the watched namespace, and says that global catalogs are out of sight', async () => {
    const output: string[] = [];
    const running = runControllers(
      {
        kubeconfig,
        namespace: 'olm',
        watchNamespaces: ['watched'],
        metricsPort: 0,
        metricsHost: '127.0.0.1',
        logLevel: 'silent',
        leaderElection: false,
        runFor: 600_000,
      } satisfies RunOptions,
      (text) => output.push(text),
    );
    try {
      await expect.poll(async () => (await subscription('watched'))?.status?.installedCSV, { timeout: 60_000, interval: 200 }).toBe('acme-database.v1.2.0');
      await expect
        .poll(
          async () =>
            (await client.find<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', namespace: 'watched', name: 'acme-database.v1.2.0' }))?.status?.phase,
          { timeout: 60_000, interval: 200 },
        )
        .toBe('Succeeded');
      // The other namespace has the same set-up, and nothing touched it.
      expect((await subscription('unwatched'))?.status).toBeUndefined();
      expect((await client.list({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan' }, { namespace: 'unwatched' })).items).toEqual([]);
      const source = await client.find<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'unwatched', name: 'acme-examples' });
      expect(source?.status).toBeUndefined();
      expect(output.join('')).toContain(
        'watching only namespace watched: CatalogSources in the global catalog namespace olm are not seen; create the CatalogSources it needs in watched',
      );
    } finally {
      process.emit('SIGTERM');
      await running;
    }
  }, 120_000);

  it('refuses several namespaces instead of silently watching all of them, exit 2', async () => {
    const run = await runCliCaptured(['run', '--kubeconfig', kubeconfig, '--watch-namespaces', 'watched, unwatched', '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--watch-namespaces: got 2 namespaces (watched, unwatched), but the controllers watch either one namespace or all of them');
    expect(run.stdout).toBe('');
  });
});

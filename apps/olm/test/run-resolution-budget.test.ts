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

describe('olm run --resolution-budget', () => {
  let server: ApiServer;
  let client: KubeClient;
  let kubeconfig: string;
  let catalogs: ServedCatalog[] = [];

  beforeAll(async () => {
    server = await startApiServer({ port: 0 });
    kubeconfig = join(await mkdtemp(join(tmpdir(), 'olm-run-budget-')), 'kubeconfig');
    await writeFile(kubeconfig, server.kubeconfig);
    client = new KubeClient({ kubeconfig: server.kubeconfig });
    await installOlmResources(client, { namespace: 'olm' });
    catalogs = await serveCatalogs(client, [{ name: 'acme-examples', directory: exampleCatalogDirectory }], 'olm');
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tight' } } as Json);
    await client.create({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'tight', namespace: 'tight' }, spec: { targetNamespaces: ['tight'] } } as Json);
  });
  afterAll(async () => {
    await Promise.all(catalogs.map((catalog) => catalog.server.stop({ graceMs: 0 })));
    client?.close();
    await server?.stop();
    await rm(join(kubeconfig, '..'), { recursive: true, force: true });
  });

  it("reaches the catalog controller's resolver: a tiny budget fails the Subscription with the bundle named", async () => {
    const running = runControllers({
      kubeconfig,
      namespace: 'olm',
      watchNamespaces: [],
      controllers: ['catalog'],
      resolutionBudget: 5,
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      logLevel: 'silent',
      leaderElection: false,
      runFor: 600_000,
    } satisfies RunOptions, () => undefined);
    try {
      // acme-monitoring depends on acme-database through a CEL constraint: more than 5 units to test.
      await client.create({
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'Subscription',
        metadata: { name: 'acme-monitoring', namespace: 'tight' },
        spec: { name: 'acme-monitoring', channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm' },
      } as Json);
      const failed = async () => {
        const found = await client.find<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', namespace: 'tight', name: 'acme-monitoring' });
        return ((found?.status?.conditions ?? []) as Array<{ type: string; reason: string; message: string }>).find((entry) => entry.type === 'ResolutionFailed');
      };
      await expect.poll(async () => (await failed())?.message ?? '', { timeout: 60_000, interval: 200 }).toMatch(
        /^resolution stopped: evaluating constraints used up the budget of 5 units: bundle acme-monitoring\.v0\.1\.0 \(catalogsource olm\/acme-examples\)/,
      );
      expect((await failed())?.reason).toBe('ErrorPreventedResolution');
    } finally {
      process.emit('SIGTERM');
      await running;
    }
  }, 120_000);

  it('refuses a budget that is not a positive whole number, exit 2', async () => {
    const result = await runCliCaptured(['run', '--kubeconfig', kubeconfig, '--resolution-budget', 'lots', '--exit-after-start']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("option '--resolution-budget <units>' argument 'lots' is invalid");
  });
});

import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveCatalogs, type ServedCatalog } from '../src/local-olm.js';
import { exampleCatalogDirectory } from '../src/paths.js';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';
import { runCliCaptured, startBuiltOlmRun } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

const operators = 'operators.coreos.com/v1alpha1';

describe('olm run --watch-namespaces (the built CLI)', () => {
  let cluster: OlmCluster;
  let client: KubeClient;
  let kubeconfig: string;
  let catalogs: ServedCatalog[] = [];

  const subscription = (namespace: string) => client.find<Json>({ apiVersion: operators, kind: 'Subscription', namespace, name: 'acme-database' });
  const csvPhase = async (namespace: string) =>
    (await client.find<Json>({ apiVersion: operators, kind: 'ClusterServiceVersion', namespace, name: 'acme-database.v1.2.0' }))?.status?.phase;

  beforeAll(async () => {
    cluster = await startOlmCluster({ operatorNamespaces: ['team-a', 'team-b', 'team-c'] });
    ({ client, kubeconfigPath: kubeconfig } = cluster);
    // team-a subscribes from the global catalog namespace, which is not in the list; team-b and
    // team-c from a catalog of their own.
    catalogs = [
      ...(await serveCatalogs(client, [{ name: 'team-examples', directory: exampleCatalogDirectory }], 'team-b')),
      ...(await serveCatalogs(client, [{ name: 'team-examples', directory: exampleCatalogDirectory }], 'team-c')),
    ];
    const sources: Record<string, { source: string; sourceNamespace: string }> = {
      'team-a': { source: 'acme-examples', sourceNamespace: 'olm' },
      'team-b': { source: 'team-examples', sourceNamespace: 'team-b' },
      'team-c': { source: 'team-examples', sourceNamespace: 'team-c' },
    };
    for (const [namespace, source] of Object.entries(sources)) {
      await client.create({
        apiVersion: operators,
        kind: 'Subscription',
        metadata: { name: 'acme-database', namespace },
        spec: { name: 'acme-database', channel: 'stable', ...source },
      } as Json);
    }
  });
  afterAll(async () => {
    await Promise.all(catalogs.map((catalog) => catalog.server.stop({ graceMs: 0 })));
    await cluster?.stop();
  });

  it('installs what is subscribed in the listed namespaces, from global and local catalogs, and leaves the others alone', async () => {
    const olmRun = startBuiltOlmRun(kubeconfig, ['--watch-namespaces', 'team-a, team-b']);
    try {
      for (const namespace of ['team-a', 'team-b']) {
        await expect.poll(() => csvPhase(namespace), { timeout: 60_000, interval: 200, message: `CSV in ${namespace}; output:\n${olmRun.output()}` }).toBe('Succeeded');
        expect((await subscription(namespace))?.status?.installedCSV).toBe('acme-database.v1.2.0');
      }
      // The global CatalogSource is served although olm is not in the list.
      const global = await client.find<Json>({ apiVersion: operators, kind: 'CatalogSource', namespace: 'olm', name: 'acme-examples' });
      expect(global?.status?.connectionState?.lastObservedState).toBe('READY');

      // team-c has the same set-up, and nothing touched it.
      expect((await subscription('team-c'))?.status).toBeUndefined();
      expect((await client.list({ apiVersion: operators, kind: 'InstallPlan' }, { namespace: 'team-c' })).items).toEqual([]);
      expect(await csvPhase('team-c')).toBeUndefined();
      expect((await client.find<Json>({ apiVersion: operators, kind: 'CatalogSource', namespace: 'team-c', name: 'team-examples' }))?.status).toBeUndefined();
      expect(olmRun.stdout()).toContain(
        'watching only namespaces team-a, team-b: Subscriptions, InstallPlans and CSVs elsewhere are left alone; CatalogSources in the global catalog namespace olm still serve them',
      );
    } finally {
      await olmRun.stop();
    }
    expect(await olmRun.stop()).toBe(0);
  }, 120_000);

  it('refuses a name that is not a namespace name, saying what a good list looks like, exit 2', async () => {
    const run = await runCliCaptured(['run', '--kubeconfig', kubeconfig, '--watch-namespaces', 'team-a,Team_B', '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `--watch-namespaces: "Team_B" is not a namespace name (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit); give a comma-separated list such as 'team-a,team-b'`,
    );
    expect(run.stdout).toBe('');
  });
});

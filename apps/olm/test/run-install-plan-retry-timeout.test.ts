import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';
import { runCliCaptured, startBuiltOlmRun } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

/**
 * `olm run --install-plan-retry-timeout` (upstream's flag): an InstallPlan whose steps keep failing
 * is retried that long, then fails. Upstream's default is a minute; with 2s the plan fails at once.
 */
describe('olm run --install-plan-retry-timeout (the built CLI)', () => {
  let cluster: OlmCluster;
  let client: KubeClient;
  let kubeconfig: string;

  beforeAll(async () => {
    cluster = await startOlmCluster();
    ({ client, kubeconfigPath: kubeconfig } = cluster);
    // A Database CRD from elsewhere, with an object acme-database's CRD (engine: postgres or mysql) rejects: its plan cannot apply.
    await client.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'databases.acme.example.com' },
      spec: {
        group: 'acme.example.com',
        names: { plural: 'databases', singular: 'database', kind: 'Database', listKind: 'DatabaseList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { engine: { type: 'string' } } } } } } }],
      },
    } as Json);
    for (let tries = 0; ; tries += 1) {
      const crd = await client.get<Json>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'databases.acme.example.com' });
      if (crd.status?.conditions?.some((condition: Json) => condition.type === 'Established' && condition.status === 'True')) break;
      if (tries > 200) throw new Error('the Database CRD did not become Established');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.create({ apiVersion: 'acme.example.com/v1', kind: 'Database', metadata: { name: 'legacy', namespace: 'default' }, spec: { engine: 'oracle' } } as Json);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('fails an InstallPlan whose steps keep failing once the timeout has passed', async () => {
    const olmRun = startBuiltOlmRun(kubeconfig, ['--install-plan-retry-timeout', '2s']);
    try {
      const install = await runCliCaptured(['install', 'acme-database', '--kubeconfig', kubeconfig, '-n', 'retry', '--timeout', '45000']);
      expect(install.code, olmRun.output()).toBe(1);
      expect(install.stderr).toMatch(/install plan install-\S+ failed: .*databases\.acme\.example\.com/);
      const [plan] = (await client.list<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan' }, { namespace: 'retry' })).items;
      expect(plan!.status.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Installed', status: 'False', reason: 'InstallComponentFailed' })]));
    } finally {
      await olmRun.stop();
    }
  }, 90_000);

  it('refuses a value that is not a duration', async () => {
    const run = await runCliCaptured(['run', '--kubeconfig', kubeconfig, '--install-plan-retry-timeout', '60', '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--install-plan-retry-timeout "60": time: missing unit in duration "60"; give a duration such as 90s, 5m or 1h30m');
  });
});

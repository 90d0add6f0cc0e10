import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runControllers } from '../src/commands/run.js';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';
import { runCliCaptured, testRunOptions } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

describe('olm run --resolution-budget', () => {
  let cluster: OlmCluster;
  let client: KubeClient;
  let kubeconfig: string;

  beforeAll(async () => {
    cluster = await startOlmCluster({ operatorNamespaces: ['tight'] });
    ({ client, kubeconfigPath: kubeconfig } = cluster);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it("reaches the catalog controller's resolver: a tiny budget fails the Subscription with the bundle named", async () => {
    const running = runControllers(testRunOptions({ kubeconfig, controllers: ['catalog'], resolutionBudget: 5 }), () => undefined);
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

import { existsSync } from 'node:fs';
import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';
import { builtCli, startBuiltOlmRun } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

const csvName = 'acme-database.v1.2.0';

describe.skipIf(!existsSync(builtCli))('olm run --protected-copied-csv-namespaces (the built CLI)', () => {
  let cluster: OlmCluster;
  let client: KubeClient;
  let kubeconfig: string;
  const copyIn = (namespace: string) => client.find<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', namespace, name: csvName });

  beforeAll(async () => {
    // `operators` has an AllNamespaces OperatorGroup: its operators are copied into every namespace.
    cluster = await startOlmCluster();
    ({ client, kubeconfigPath: kubeconfig } = cluster);
    for (const name of ['keep', 'drop']) await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as Json);
    await client.create({ apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', metadata: { name: 'cluster' }, spec: { features: { disableCopiedCSVs: true } } } as Json);
    await client.create({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { name: 'acme-database', namespace: 'operators' },
      spec: { name: 'acme-database', channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm' },
    } as Json);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('keeps copies only in the protected namespaces while the OLMConfig disables them', async () => {
    const olmRun = startBuiltOlmRun(kubeconfig, ['--protected-copied-csv-namespaces', 'keep']);
    try {
      await expect
        .poll(async () => (await copyIn('operators'))?.status?.phase, { timeout: 60_000, interval: 200, message: `CSV in operators; output:\n${olmRun.output()}` })
        .toBe('Succeeded');
      await expect.poll(async () => (await copyIn('keep'))?.status?.reason, { timeout: 30_000, interval: 200, message: `copy in keep; output:\n${olmRun.output()}` }).toBe('Copied');
      expect(await copyIn('drop')).toBeUndefined();
    } finally {
      expect(await olmRun.stop()).toBe(0);
    }
  });
});

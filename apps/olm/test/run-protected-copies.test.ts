import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';

type Json = CachedObject & Record<string, any>;

const builtCli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
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
    const child = spawn(
      process.execPath,
      [builtCli, 'run', '--kubeconfig', kubeconfig, '--protected-copied-csv-namespaces', 'keep', '--no-leader-election', '--metrics-port', '0', '--metrics-host', '127.0.0.1', '--log-level', 'error', '--run-for', '120000'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await expect
        .poll(async () => (await copyIn('operators'))?.status?.phase, { timeout: 60_000, interval: 200, message: `CSV in operators; output:\n${output}` })
        .toBe('Succeeded');
      await expect.poll(async () => (await copyIn('keep'))?.status?.reason, { timeout: 30_000, interval: 200, message: `copy in keep; output:\n${output}` }).toBe('Copied');
      expect(await copyIn('drop')).toBeUndefined();
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/program.js';

/** Collects what the CLI prints (stdout is the CLI's interface) while it runs. */
async function captureStdout<T>(run: (output: { text: string }) => Promise<T>): Promise<{ result: T; text: string }> {
  const output = { text: '' };
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    output.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return original(chunk as never, ...(rest as []));
  }) as typeof process.stdout.write;
  try {
    const result = await run(output);
    return { result, text: output.text };
  } finally {
    process.stdout.write = original;
  }
}

describe('olm up', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('starts a local API server whose printed kubeconfig works, then stops', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'olm-up-'));
    directories.push(dataDir);
    const { result, text } = await captureStdout(async (output) => {
      const running = runCli(['up', '--port', '0', '--data-dir', dataDir, '--run-for', '20000']);
      const kubeconfigPath = join(dataDir, 'kubeconfig');
      const deadline = Date.now() + 10_000;
      while (!output.text.includes('booted') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(output.text).toContain(`export KUBECONFIG=${kubeconfigPath}`);
      const config = new KubeConfig();
      config.loadFromFile(kubeconfigPath);
      const namespaces = await config.makeApiClient(CoreV1Api).listNamespace();
      expect(namespaces.items.map((namespace) => namespace.metadata?.name)).toEqual(expect.arrayContaining(['kube-system', 'olm', 'operators']));
      const custom = config.makeApiClient(CustomObjectsApi);
      const catalogSource = (await custom.getNamespacedCustomObject({
        group: 'operators.coreos.com',
        version: 'v1alpha1',
        namespace: 'olm',
        plural: 'catalogsources',
        name: 'acme-examples',
      })) as { spec: { sourceType: string; address: string } };
      expect(catalogSource.spec.sourceType).toBe('grpc');
      expect(output.text).toContain(`CatalogSource olm/acme-examples: `);
      expect(output.text).toContain(`on ${catalogSource.spec.address}`);
      const groups = (await custom.listNamespacedCustomObject({
        group: 'operators.coreos.com',
        version: 'v1',
        namespace: 'operators',
        plural: 'operatorgroups',
      })) as { items: Array<{ metadata: { name: string } }> };
      expect(groups.items.map((group) => group.metadata.name)).toEqual(['global-operators']);
      process.emit('SIGINT');
      return running;
    });
    expect(result).toBe(0);
    expect(text).toContain('kubectl get catalogsources -n olm');
    expect(text).toContain('received SIGINT, stopping');
    expect(text.trimEnd().endsWith('stopped')).toBe(true);
    expect(existsSync(join(dataDir, 'store.jsonl'))).toBe(true);
  });

  it('exits right after start with --exit-after-start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'olm-up-'));
    directories.push(dataDir);
    const kubeconfig = join(dataDir, 'custom', 'config');
    const { result, text } = await captureStdout(() => runCli(['up', '--port', '0', '--kubeconfig', kubeconfig, '--exit-after-start']));
    expect(result).toBe(0);
    expect(text).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(in memory\)/);
    expect(readFileSync(kubeconfig, 'utf8')).toContain('insecure-skip-tls-verify: true');
  });

  it('rejects a bad port as a usage error', async () => {
    const code = await runCli(['up', '--port', 'eighty', '--exit-after-start']);
    expect(code).toBe(2);
  });
});

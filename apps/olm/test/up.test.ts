import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@olm/controller-runtime';
import { startApiServer } from '@olm/local-apiserver';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/program.js';
import { runControllers } from '../src/commands/run.js';
import { runCliCaptured, testRunOptions } from './run-cli.js';
import { kubeconfigGetJson } from './kubeconfig-fetch.js';

/** A kubeconfig path in a fresh temporary directory, so that no test writes ./.olm. */
const kubeconfigDirectories: string[] = [];
function temporaryKubeconfig(): string {
  const directory = mkdtempSync(join(tmpdir(), 'olm-up-kubeconfig-'));
  kubeconfigDirectories.push(directory);
  return join(directory, 'kubeconfig');
}

/** A port something else already listens on. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

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
    for (const directory of [...directories.splice(0), ...kubeconfigDirectories.splice(0)]) rmSync(directory, { recursive: true, force: true });
  });

  it('starts a local API server whose printed kubeconfig works, then stops', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'olm-up-'));
    directories.push(dataDir);
    const { result, text } = await captureStdout(async (output) => {
      const running = runCli(['up', '--port', '0', '--data-dir', dataDir, '--run-for', '20000']);
      const kubeconfigPath = join(dataDir, 'kubeconfig');
      // A bound on the wait, not a time to meet: a loaded machine takes seconds to start everything.
      const deadline = Date.now() + 60_000;
      while (!output.text.includes('running; press Ctrl-C') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(output.text).toContain(`export KUBECONFIG=${kubeconfigPath}`);
      const config = new KubeConfig();
      config.loadFromFile(kubeconfigPath);
      // The context's namespace is where olm install and kubectl work by default: the global OperatorGroup's.
      expect(config.getContextObject(config.getCurrentContext())?.namespace).toBe('operators');
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
      // The packageserver started before the controllers, and the API server routes its group to it.
      expect(output.text).toMatch(/starting the packageserver\.\.\.\n {2}PackageManifests \(v1\.packages\.operators\.coreos\.com\) on https:\/\/127\.0\.0\.1:\d+: 3 packages\n/);
      const manifests = (await custom.listNamespacedCustomObject({ group: 'packages.operators.coreos.com', version: 'v1', namespace: 'operators', plural: 'packagemanifests' })) as {
        items: Array<{ metadata: { name: string }; status: { catalogSource: string } }>;
      };
      expect(manifests.items.map((item) => `${item.status.catalogSource}/${item.metadata.name}`)).toEqual(['acme-examples/acme-backup', 'acme-examples/acme-database', 'acme-examples/acme-monitoring']);
      process.emit('SIGINT');
      return running;
    });
    expect(result).toBe(0);
    expect(text).toContain('kubectl get catalogsources -n olm');
    expect(text).toContain('kubectl get packagemanifests -n operators');
    expect(text).toContain('kubectl describe packagemanifest acme-database -n operators');
    expect(text).toContain('kubectl get subscriptions,installplans,csv -n operators');
    expect(text).toContain('pnpm -s olm status');
    expect(text).toContain('pnpm -s olm uninstall acme-backup');
    expect(text).toContain('received SIGINT, stopping');
    expect(text.trimEnd().endsWith('stopped')).toBe(true);
    expect(existsSync(join(dataDir, 'store.jsonl'))).toBe(true);
    // Stopping removed the registration: a later start with this --data-dir routes the group to no stale port.
    const restarted = await startApiServer({ port: 0, dataDir });
    try {
      const client = new KubeClient({ kubeconfig: restarted.kubeconfig });
      expect(await client.find({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.packages.operators.coreos.com' })).toBeUndefined();
      expect(await client.find({ apiVersion: 'v1', kind: 'Service', namespace: 'olm', name: 'packageserver-service' })).toBeUndefined();
      expect(await client.find({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'olm', name: 'acme-examples' })).toBeDefined();
      client.close();
    } finally {
      await restarted.stop();
    }
  });

  it('with --no-controllers --no-packageserver serves the cluster and catalogs only, for olm run apart to drive', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'olm-up-'));
    directories.push(dataDir);
    const kubeconfigPath = join(dataDir, 'kubeconfig');
    const { result, text } = await captureStdout(async (output) => {
      const running = runCli(['up', '--port', '0', '--data-dir', dataDir, '--no-controllers', '--no-packageserver', '--run-for', '120000']);
      const deadline = Date.now() + 30_000;
      while (!output.text.includes('running; press Ctrl-C') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(output.text).toContain(`no controllers in this process: run them with olm run --kubeconfig ${kubeconfigPath}`);
      const client = new KubeClient({ kubeconfig: readFileSync(kubeconfigPath, 'utf8') });
      try {
        // The catalogs are served; no packageserver was registered.
        expect(await client.find({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'olm', name: 'acme-examples' })).toBeDefined();
        expect(await client.find({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.packages.operators.coreos.com' })).toBeUndefined();
        await client.create({
          apiVersion: 'operators.coreos.com/v1alpha1',
          kind: 'Subscription',
          metadata: { name: 'acme-monitoring', namespace: 'operators' },
          spec: { name: 'acme-monitoring', channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm' },
        });
        // The controllers, run apart as on a cluster, take it from there.
        const controllers = runControllers(testRunOptions({ kubeconfig: kubeconfigPath, runFor: 120_000 }), () => undefined);
        const succeeded = async () => {
          const csvs = await client.list<{ metadata: { name: string }; status?: { phase?: string } }>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' }, { namespace: 'operators' });
          return csvs.items.some((csv) => csv.metadata.name.startsWith('acme-monitoring') && csv.status?.phase === 'Succeeded');
        };
        const installDeadline = Date.now() + 90_000;
        while (!(await succeeded()) && Date.now() < installDeadline) await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await succeeded()).toBe(true);
        process.emit('SIGINT');
        await controllers;
      } finally {
        client.close();
      }
      return running;
    });
    expect(result).toBe(0);
    expect(text).not.toContain('starting the controllers');
    expect(text).not.toContain('starting the packageserver');
  });

  it('exits right after start with --exit-after-start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'olm-up-'));
    directories.push(dataDir);
    const kubeconfig = join(dataDir, 'custom', 'config');
    const { result, text } = await captureStdout(() => runCli(['up', '--port', '0', '--kubeconfig', kubeconfig, '--exit-after-start']));
    expect(result).toBe(0);
    // HTTPS, so that kubectl sends the kubeconfig's token (client-go sends credentials only over TLS).
    expect(text).toMatch(/listening on https:\/\/127\.0\.0\.1:\d+ \(in memory\)/);
    expect(readFileSync(kubeconfig, 'utf8')).toContain('certificate-authority-data');
    expect(readFileSync(kubeconfig, 'utf8')).toMatch(/token: \S+/);
  });

  it('rejects a bad port as a usage error naming the flag', async () => {
    const run = await runCliCaptured(['up', '--port', 'eighty', '--kubeconfig', temporaryKubeconfig(), '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`option '--port <port>' argument 'eighty' is invalid`);
    expect(run.stderr).toContain('a port is a number from 0 to 65535');
  });

  it('says which port is taken and how to pick another, for the API server and for the metrics', async () => {
    const { port, server } = await occupiedPort();
    try {
      const api = await runCliCaptured(['up', '--port', String(port), '--kubeconfig', temporaryKubeconfig(), '--exit-after-start']);
      expect(api.code).toBe(2);
      expect(api.stderr).toContain(`cannot start the local API server: 127.0.0.1:${port} is already in use`);
      expect(api.stderr).toContain('pass --port with a free port (--port 0 picks one)');
      const metrics = await runCliCaptured(['up', '--port', '0', '--kubeconfig', temporaryKubeconfig(), '--metrics-port', String(port), '--exit-after-start']);
      expect(metrics.code).toBe(2);
      expect(metrics.stderr).toContain(`cannot serve /metrics, /healthz and /readyz: 127.0.0.1:${port} is already in use`);
      expect(metrics.stderr).toContain('--metrics-port 0 picks one');
      // Everything started before the failure was stopped again: the run returned.
      expect(metrics.stdout).not.toContain('OLM is up');
    } finally {
      server.close();
    }
  });

  it('refuses a --data-dir whose log is corrupt in the middle, saying where and how to recover, and keeps the file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'olm-up-corrupt-'));
    directories.push(dataDir);
    const first = await startApiServer({ port: 0, dataDir });
    await first.stop();
    const path = join(dataDir, 'store.jsonl');
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    lines[1] = '{"t":"obj",';
    writeFileSync(path, `${lines.join('\n')}\n`);
    const run = await runCliCaptured(['up', '--port', '0', '--data-dir', dataDir, '--exit-after-start']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${path}:2: the data directory's log is corrupt`);
    expect(run.stderr).toContain(`move ${path} aside`);
    expect(readFileSync(path, 'utf8')).toBe(`${lines.join('\n')}\n`);
  });

  it('reports --kubernetes-version on /version, and refuses one that is no release tag before starting anything', async () => {
    const kubeconfigPath = temporaryKubeconfig();
    const { result } = await captureStdout(async (output) => {
      const running = runCli(['up', '--port', '0', '--kubeconfig', kubeconfigPath, '--kubernetes-version', 'v1.28.3', '--run-for', '60000']);
      const deadline = Date.now() + 30_000;
      while (!output.text.includes('OLM is up') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const version = await kubeconfigGetJson<Record<string, string>>(kubeconfigPath, '/version');
      expect(version).toMatchObject({ major: '1', minor: '28', gitVersion: 'v1.28.3' });
      process.emit('SIGINT');
      return running;
    });
    expect(result).toBe(0);
    const run = await runCliCaptured(['up', '--port', '0', '--kubeconfig', temporaryKubeconfig(), '--kubernetes-version', '1.28', '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--kubernetes-version: "1.28" is not a Kubernetes version: write it as its release tag, v<major>.<minor>.<patch> (for example v1.28.3)');
    expect(run.stdout).toBe('');
  });

  it('refuses a --catalog that is not a directory before starting anything', async () => {
    const run = await runCliCaptured(['up', '--port', '0', '--kubeconfig', temporaryKubeconfig(), '--catalog', '/nonexistent/catalog', '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--catalog /nonexistent/catalog: no such directory');
    expect(run.stderr).toContain('pass a file-based catalog directory');
    expect(run.stdout).toBe('');
  });

  it('names an invalid --catalog, its problems, and the command that lists them all', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'olm-up-bad-catalog-'));
    directories.push(directory);
    mkdirSync(join(directory, 'broken'));
    writeFileSync(join(directory, 'broken', 'catalog.yaml'), 'schema: olm.bundle\nname: broken.v1\n');
    const run = await runCliCaptured(['up', '--port', '0', '--kubeconfig', temporaryKubeconfig(), '--catalog', directory, '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot serve catalog ${directory} (CatalogSource olm/`);
    expect(run.stderr).toContain('broken/catalog.yaml:1');
    expect(run.stderr).toContain(`olm catalog validate ${directory}`);
    expect(run.stdout).not.toContain('OLM is up');
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CachedObject } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { loadPlugins, runDistribution } from '@olm/olm';
import { exampleCatalogDirectory, installOlmResources, serveCatalogs, startControllers, type RunningControllers, type ServedCatalog } from '@olm/olm/local-cluster';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { minimalDistribution } from '../src/distribution.js';

type Json = CachedObject & Record<string, any>;

const builtCli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** Runs the distribution's CLI in-process and captures what it writes. */
async function runCaptured(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  const previousExitCode = process.exitCode;
  process.exitCode = undefined;
  try {
    return { code: await runDistribution(minimalDistribution, args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = previousExitCode;
  }
}

describe('olm-minimal: which plugins it boots', () => {
  it('lists plugin-sat-cdcl and neither plugin-cel nor logic-solver in `version`', async () => {
    const run = await runCaptured(['version', '-o', 'json']);
    expect(run.code).toBe(0);
    const ids = (JSON.parse(run.stdout) as { plugins: Array<{ id: string }> }).plugins.map((plugin) => plugin.id);
    expect(ids).toContain('plugin-sat-cdcl');
    expect(ids).not.toContain('plugin-cel');
    expect(ids).not.toContain('plugin-sat-logic-solver');
    expect(ids).toEqual(expect.arrayContaining(['registry', 'resolver', 'plugin-rbac', 'controller-runtime', 'controller-csv', 'controller-operator-groups', 'controller-catalog', 'bundle-puller']));
    const text = await runCaptured(['version']);
    expect(text.stdout).toMatch(/^olm-minimal \d+\.\d+\.\d+ \(node /);
  });

  it('names in its list the plugins it loads, so that `version` need not load them', async () => {
    const list = minimalDistribution.distributionPlugins({ namespace: 'olm', leaderElection: true });
    const loaded = await loadPlugins(list);
    expect(loaded.map((plugin) => `${plugin.id} ${plugin.version}`)).toEqual(list.map((entry) => `${entry.id} ${entry.version}`));
  });

  it.skipIf(!existsSync(builtCli))('the built bin answers --version and version without importing the controllers or the Kubernetes client', () => {
    const forbidden = ['@kubernetes/client-node', '@olm/controller-runtime', '@olm/controller-csv', '@olm/controller-catalog', '@olm/local-apiserver', '@olm/packageserver', '@olm/plugin-sat-cdcl'];
    const hooks = `export async function resolve(specifier, context, next) { if (${JSON.stringify(forbidden)}.includes(specifier)) throw new Error('imported at start-up: ' + specifier); return next(specifier, context); }`;
    const preload = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`)}`;
    for (const args of [['--version'], ['version']]) {
      const run = spawnSync(process.execPath, ['--import', preload, builtCli, ...args], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    }
    const resolve = spawnSync(process.execPath, ['--import', preload, builtCli, 'resolve', '-f', fileURLToPath(new URL('../../../examples/resolve-monitoring.yaml', import.meta.url))], { encoding: 'utf8' });
    expect(resolve.stderr).toContain('imported at start-up: @olm/plugin-sat-cdcl');
  });

  it.skipIf(!existsSync(builtCli))('the built `olm-minimal` bin says the same, and its `up` boots the CDCL backend', () => {
    const version = spawnSync(process.execPath, [builtCli, 'version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^ {2}plugin-sat-cdcl \S+$/m);
    expect(version.stdout).not.toContain('plugin-cel');
    const directory = mkdtempSync(join(tmpdir(), 'olm-minimal-up-'));
    const up = spawnSync(process.execPath, [builtCli, 'up', '--port', '0', '--kubeconfig', join(directory, 'kubeconfig'), '--exit-after-start'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    rmSync(directory, { recursive: true, force: true });
    expect(up.stderr).toBe('');
    expect(up.status).toBe(0);
    const booted = /booted (.+)/.exec(up.stdout)?.[1]?.split(', ');
    expect(booted).toContain('plugin-sat-cdcl');
    expect(booted).not.toContain('plugin-cel');
  }, 120_000);
});

describe('olm-minimal against the local API server', () => {
  let server: ApiServer;
  let client: KubeClient;
  let catalogs: ServedCatalog[] = [];
  let controllers: RunningControllers;

  const subscribe = async (namespace: string, pkg: string) => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } as Json);
    await client.create({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: namespace, namespace }, spec: { targetNamespaces: [namespace] } } as Json);
    await client.create({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { name: pkg, namespace },
      spec: { name: pkg, channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm' },
    } as Json);
  };
  const subscription = (namespace: string, name: string) =>
    client.find<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', namespace, name });

  beforeAll(async () => {
    server = await startApiServer({ port: 0 });
    client = new KubeClient({ kubeconfig: server.kubeconfig });
    await installOlmResources(client, { namespace: 'olm' });
    catalogs = await serveCatalogs(client, [{ name: 'acme-examples', directory: exampleCatalogDirectory }], 'olm');
    controllers = await startControllers({
      kubeconfig: server.kubeconfig,
      plugins: minimalDistribution.distributionPlugins({ namespace: 'olm', leaderElection: false }),
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      logLevel: 'silent',
    });
  });
  afterAll(async () => {
    await controllers?.stop();
    await Promise.all(catalogs.map((catalog) => catalog.server.stop({ graceMs: 0 })));
    client?.close();
    await server?.stop();
  });

  it('boots the CDCL SAT backend and no CEL evaluator', () => {
    const ids = controllers.kernel.plugins.map((plugin) => plugin.id);
    expect(ids).toContain('plugin-sat-cdcl');
    expect(ids).not.toContain('plugin-cel');
  });

  it('installs an operator without CEL constraints: its CSV Succeeds', async () => {
    await subscribe('minimal-database', 'acme-database');
    const installed = await expect
      .poll(async () => (await subscription('minimal-database', 'acme-database'))?.status?.installedCSV as string | undefined, { timeout: 60_000, interval: 200 })
      .toBeDefined()
      .then(async () => (await subscription('minimal-database', 'acme-database'))!.status.installedCSV as string);
    await expect
      .poll(
        async () => (await client.find<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', namespace: 'minimal-database', name: installed }))?.status?.phase,
        { timeout: 60_000, interval: 200 },
      )
      .toBe('Succeeded');
  }, 120_000);

  it('fails to resolve a bundle with a `cel` olm.constraint, saying no evaluator for cel is booted', async () => {
    await subscribe('minimal-monitoring', 'acme-monitoring');
    const failed = await expect
      .poll(
        async () => ((await subscription('minimal-monitoring', 'acme-monitoring'))?.status?.conditions as Array<Record<string, string>> | undefined)?.find((condition) => condition.type === 'ResolutionFailed'),
        { timeout: 60_000, interval: 200 },
      )
      .toBeDefined()
      .then(async () => ((await subscription('minimal-monitoring', 'acme-monitoring'))!.status.conditions as Array<Record<string, string>>).find((condition) => condition.type === 'ResolutionFailed')!);
    expect(failed.status).toBe('True');
    expect(failed.message).toContain('no evaluator for constraint kind "cel" is booted (for "cel", add @olm/plugin-cel)');
    const plans = await client.list<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan' }, { namespace: 'minimal-monitoring' });
    expect(plans.items).toEqual([]);
  }, 120_000);
});

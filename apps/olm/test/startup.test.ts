import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plugins } from '../src/plugins.js';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const repository = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Preloaded with `node --import`: resolving the Kubernetes client, the controllers, the local API
 * server or the packageserver throws, so a command that still imports them at start-up fails.
 */
const forbidden = ['@kubernetes/client-node', '@olm/controller-runtime', '@olm/controller-csv', '@olm/controller-catalog', '@olm/local-apiserver', '@olm/packageserver'];
const hooks = `export async function resolve(specifier, context, next) {
  if (${JSON.stringify(forbidden)}.includes(specifier)) throw new Error('imported at start-up: ' + specifier);
  return next(specifier, context);
}`;
const preload = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`)}`;

function runWithout(args: readonly string[]) {
  return spawnSync(process.execPath, ['--import', preload, cli, ...args], { cwd: repository, encoding: 'utf8', timeout: 60_000 });
}

describe.skipIf(!existsSync(cli))('the built CLI starts without loading what offline commands do not need', () => {
  it('the guard works: a command that runs controllers fails under it, naming what it imported', () => {
    const directory = mkdtempSync(join(tmpdir(), 'olm-startup-'));
    try {
      // A kubeconfig that reads fine; nothing needs to answer: the import fails first.
      const kubeconfig = join(directory, 'kubeconfig');
      writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {}}]\ncurrent-context: c\n');
      const run = runWithout(['run', '--kubeconfig', kubeconfig, '--metrics-port', '0', '--exit-after-start']);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/imported at start-up: @(olm\/controller-|kubernetes\/client-node)/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it.each([
    [['--version']],
    [['--help']],
    [['up', '--help']],
    [['run', '--help']],
    [['packageserver', '--help']],
    [['crds']],
    [['catalog', 'validate', 'examples/catalog']],
    [['catalog', 'render', 'examples/catalog', '-o', 'yaml']],
    [['catalog', 'graph', 'examples/catalog', '--package', 'acme-database']],
    [['bundle', 'validate', 'examples/bundles/acme-backup.v0.1.0']],
    [['catalog', 'render', 'examples/bundles/acme-backup.v0.1.0']],
    [['resolve', '-f', 'examples/resolve-monitoring.yaml']],
  ])('olm %j', (args) => {
    const run = runWithout(args);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).not.toBe('');
  });

  it('olm version lists the plugins without importing them', () => {
    const run = runWithout(['version', '-o', 'json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as { plugins: Array<{ id: string; version: string }> }).plugins).toEqual(plugins.map(({ id, version }) => ({ id, version })));
  });
});

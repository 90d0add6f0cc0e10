import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRegistryClient } from '@olm/registry';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const builtCli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'olm-catalog-serve-'));
mkdirSync(join(dir, 'etcd'));
writeFileSync(
  join(dir, 'etcd', 'catalog.yaml'),
  [
    'schema: olm.package',
    'name: etcd',
    'defaultChannel: stable',
    '---',
    'schema: olm.channel',
    'name: stable',
    'package: etcd',
    'entries:',
    '- name: etcd.v1.0.0',
    '---',
    'schema: olm.bundle',
    'name: etcd.v1.0.0',
    'package: etcd',
    'image: quay.io/etcd/bundle:1.0.0',
    'properties:',
    '- type: olm.package',
    '  value: {packageName: etcd, version: 1.0.0}',
    '',
  ].join('\n'),
);

describe('olm catalog serve', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads the directory, serves it and prints the address', async () => {
    const run = await runCliCaptured(['catalog', 'serve', dir, '--port', '0', '--host', '127.0.0.1', '--exit-after-start']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^serving ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(1 packages, 1 bundles\\) on 127\\.0\\.0\\.1:\\d+\\n$`));
  });

  it('listens on loopback only unless --host says otherwise', async () => {
    const run = await runCliCaptured(['catalog', 'serve', dir, '--port', '0', '--exit-after-start']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ on 127\.0\.0\.1:\d+\n$/);
    const everywhere = await runCliCaptured(['catalog', 'serve', dir, '--port', '0', '--host', '0.0.0.0', '--exit-after-start']);
    expect(everywhere.stdout).toMatch(/ on 0\.0\.0\.0:\d+\n$/);
  });

  // The built CLI as a user runs it: a real process serving until SIGTERM, queried over gRPC.
  it.skipIf(!existsSync(builtCli))('serves api.Registry and health until SIGTERM, then exits 0', async () => {
    const child = spawn(process.execPath, [builtCli, 'catalog', 'serve', dir, '--port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 30_000;
      while (!/ on (\S+:\d+)\n/.test(output)) {
        if (child.exitCode !== null) throw new Error(`olm catalog serve exited with ${child.exitCode}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`olm catalog serve did not start within 30 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const address = / on (\S+:\d+)\n/.exec(output)?.[1] ?? '';
      const client = createRegistryClient(address, { deadlineMs: 10_000 });
      try {
        expect(await client.checkHealth()).toBe('SERVING');
        expect(await client.listPackages()).toEqual(['etcd']);
        expect(await client.getPackage('etcd')).toEqual({ name: 'etcd', defaultChannelName: 'stable', channels: [{ name: 'stable', csvName: 'etcd.v1.0.0' }] });
        expect((await client.getBundleForChannel('etcd', 'stable')).bundlePath).toBe('quay.io/etcd/bundle:1.0.0');
      } finally {
        client.close();
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('rejects a bad port with exit code 2', async () => {
    const run = await runCliCaptured(['catalog', 'serve', dir, '--port', 'http', '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--port must be an integer from 0 to 65535');
  });

  it('exits 2 when the directory is missing, 1 when the catalog is invalid (opm serve refuses it too)', async () => {
    const run = await runCliCaptured(['catalog', 'serve', join(dir, 'missing'), '--port', '0', '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: open .*missing: no such file or directory/);
    const invalid = mkdtempSync(join(tmpdir(), 'olm-catalog-serve-invalid-'));
    try {
      writeFileSync(join(invalid, 'catalog.yaml'), 'schema: olm.package\nname: etcd\n');
      const refused = await runCliCaptured(['catalog', 'serve', invalid, '--port', '0', '--exit-after-start']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('package must contain at least one channel');
      expect(refused.stdout).toBe('');
    } finally {
      rmSync(invalid, { recursive: true, force: true });
    }
  });
});

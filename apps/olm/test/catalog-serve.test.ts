import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

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

  it('rejects a bad port with exit code 2', async () => {
    const run = await runCliCaptured(['catalog', 'serve', dir, '--port', 'http', '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--port must be an integer from 0 to 65535');
  });

  it('fails with exit code 1 or 2 when the directory is not a catalog', async () => {
    const run = await runCliCaptured(['catalog', 'serve', join(dir, 'missing'), '--port', '0', '--exit-after-start']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^error: /);
  });
});

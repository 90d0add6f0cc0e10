import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const realCatalog = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));

const invalidCatalog = `---
schema: olm.package
name: foo
defaultChannel: stable
---
schema: olm.channel
package: foo
name: stable
entries:
  - name: foo.v0.1.0
  - name: foo.v0.2.0
---
schema: olm.bundle
package: foo
name: foo.v0.1.0
image: quay.io/example/foo:v0.1.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 0.1.0}
---
schema: olm.bundle
package: foo
name: foo.v0.2.0
image: quay.io/example/foo:v0.2.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 0.2.0}
`;

describe('olm catalog validate', () => {
  let dir: string;
  let validDir: string;
  let unloadableDir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'olm-cli-validate-'));
    await writeFile(join(dir, 'catalog.yaml'), invalidCatalog);
    validDir = await mkdtemp(join(tmpdir(), 'olm-cli-validate-ok-'));
    // The invalid catalog minus its second head: valid.
    await writeFile(join(validDir, 'catalog.yaml'), invalidCatalog.replace('  - name: foo.v0.2.0\n', '  - name: foo.v0.2.0\n    replaces: foo.v0.1.0\n'));
    unloadableDir = await mkdtemp(join(tmpdir(), 'olm-cli-validate-bad-'));
    await writeFile(join(unloadableDir, 'catalog.yaml'), invalidCatalog);
    await writeFile(join(unloadableDir, 'broken.yaml'), 'schema: olm.channel\nentries: [\n');
  });
  afterAll(async () => {
    for (const path of [dir, validDir, unloadableDir]) await rm(path, { recursive: true, force: true });
  });

  it('exits 0 on the real catalog', async () => {
    const run = await runCliCaptured(['catalog', 'validate', realCatalog]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('is valid: 59 packages, 213 channels, 739 bundles');
  });

  it('exits 1 and lists each error with file:line, hint and the upstream tree', async () => {
    const run = await runCliCaptured(['catalog', 'validate', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      [
        'catalog.yaml:6: multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0',
        '    hint: link the entries into one upgrade graph: each listed head except the newest should be replaced or skipped by a newer entry',
        'invalid index:',
        '└── invalid package "foo":',
        '    └── invalid channel "stable":',
        '        └── multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0',
        '',
      ].join('\n'),
    );
    expect(run.stderr).toContain('1 error(s)');
  });

  it('prints a machine-readable report with -o json', async () => {
    const run = await runCliCaptured(['catalog', 'validate', dir, '-o', 'json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { passed: boolean; error: { message: string }; errors: Array<Record<string, unknown>> };
    expect(report.passed).toBe(false);
    expect(report.error.message).toBe(
      'invalid index:\n└── invalid package "foo":\n    └── invalid channel "stable":\n        └── multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0',
    );
    expect(report.errors).toEqual([
      expect.objectContaining({
        rule: 'multiple-channel-heads',
        message: 'multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0',
        file: 'catalog.yaml',
        line: 6,
        package: 'foo',
        channel: 'stable',
        code: 'OLM_REGISTRY_INVALID',
      }),
    ]);
  });

  it('prints {"passed": true} with -o json and exits 0 on a valid catalog', async () => {
    const run = await runCliCaptured(['catalog', 'validate', validDir, '-o', 'json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(report).toEqual({ passed: true, errors: [], warnings: [], counts: { packages: 1, channels: 1, bundles: 2 } });
    const text = await runCliCaptured(['catalog', 'validate', validDir]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`${validDir} is valid: 1 packages, 1 channels, 2 bundles\n`);
  });

  it('exits 1 when a file cannot be parsed: the load problem with file:line, in text and JSON', async () => {
    const run = await runCliCaptured(['catalog', 'validate', unloadableDir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^broken\.yaml:3: yaml: line 3: /);
    expect(run.stdout).toContain('    hint: fix the YAML syntax');
    const json = await runCliCaptured(['catalog', 'validate', unloadableDir, '-o', 'json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { passed: boolean; error: { message: string }; errors: Array<Record<string, unknown>> };
    expect(report.passed).toBe(false);
    expect(report.error.message).toMatch(/^yaml: line 3: /);
    // Only the load problem: the rest of the catalog is not judged while a file fails to load.
    expect(report.errors).toEqual([expect.objectContaining({ rule: 'load', stage: 'load', file: 'broken.yaml', line: 3, code: 'OLM_REGISTRY_LOAD' })]);
  });

  it('exits 2 for a missing argument, or a path that is a file', async () => {
    const noDir = await runCliCaptured(['catalog', 'validate']);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain("missing required argument 'dir'");
    const file = await runCliCaptured(['catalog', 'validate', join(dir, 'catalog.yaml')]);
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/^error: /);
    expect(file.stdout).toBe('');
  });

  it('exits 2 for a missing directory or a bad output format', async () => {
    const missing = await runCliCaptured(['catalog', 'validate', join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file or directory');
    const badFormat = await runCliCaptured(['catalog', 'validate', dir, '-o', 'xml']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain('unknown output format "xml"');
  });
});

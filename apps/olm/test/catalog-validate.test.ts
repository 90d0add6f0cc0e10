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
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'olm-cli-validate-'));
    await writeFile(join(dir, 'catalog.yaml'), invalidCatalog);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
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

  it('exits 2 for a missing directory or a bad output format', async () => {
    const missing = await runCliCaptured(['catalog', 'validate', join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file or directory');
    const badFormat = await runCliCaptured(['catalog', 'validate', dir, '-o', 'xml']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain('unknown output format "xml"');
  });
});

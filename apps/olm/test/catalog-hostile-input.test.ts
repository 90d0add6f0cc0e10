import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandingCatalogFile } from '@olm/registry/testing';
import { runCliCaptured } from './run-cli.js';

/**
 * A valid catalog but for nested YAML aliases inside a bundle property ("billion laughs"): nine
 * levels of nine aliases, under 1 KB on disk and gigabytes once written out. validate, render,
 * serve and up share the loader, which refuses the file at load with its line.
 */
const laughs = [
  'schema: olm.package',
  'name: laughs',
  'defaultChannel: stable',
  '---',
  'schema: olm.channel',
  'package: laughs',
  'name: stable',
  'entries:',
  '  - name: laughs.v1.0.0',
  '---',
  'schema: olm.bundle',
  'package: laughs',
  'name: laughs.v1.0.0',
  'image: quay.io/example/laughs:v1.0.0',
  'properties:',
  '  - type: olm.package',
  '    value: {packageName: laughs, version: 1.0.0}',
  '  - type: example.laughs',
  '    value:',
  `      a: &a [${Array(9).fill('"lol"').join(', ')}]`,
  ...'bcdefghi'.split('').map((name, index) => `      ${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[index]}`).join(', ')}]`),
  '',
].join('\n');

/** The document (the bundle) starts on line 11; its first anchor is on line 20. */
const refusal = 'catalog.yaml:20: yaml: line 20: document contains excessive aliasing: with its aliases expanded it takes more than 67108864 bytes (limit maxExpandedBytes)';

describe('a catalog with a YAML alias bomb', () => {
  let dir: string;
  /** Where `up` may write its kubeconfig (not ./.olm, not the catalog). */
  let kubeconfigDir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'olm-catalog-laughs-'));
    writeFileSync(join(dir, 'catalog.yaml'), laughs);
    kubeconfigDir = mkdtempSync(join(tmpdir(), 'olm-catalog-laughs-kubeconfig-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(kubeconfigDir, { recursive: true, force: true });
  });

  it('validate: exits 1 naming file and line', async () => {
    const run = await runCliCaptured(['catalog', 'validate', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(refusal);
    const json = await runCliCaptured(['catalog', 'validate', dir, '-o', 'json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { errors: Array<Record<string, unknown>> };
    expect(report.errors).toEqual([expect.objectContaining({ stage: 'load', file: 'catalog.yaml', line: 20, code: 'OLM_REGISTRY_LOAD' })]);
  });

  it('render: exits 2 naming file and line, printing nothing', async () => {
    const run = await runCliCaptured(['catalog', 'render', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(refusal);
    expect(run.stdout).toBe('');
  });

  it('serve: refuses the catalog naming file and line', async () => {
    const run = await runCliCaptured(['catalog', 'serve', dir, '--port', '0', '--exit-after-start']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(refusal);
    expect(run.stdout).toBe('');
  });

  it('up --catalog: refuses the catalog naming file and line, before starting anything', async () => {
    const run = await runCliCaptured(['up', '--port', '0', '--kubeconfig', join(kubeconfigDir, 'kubeconfig'), '--catalog', dir, '--exit-after-start']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('catalog.yaml:20');
    expect(run.stderr).toContain('document contains excessive aliasing');
    expect(run.stdout).not.toContain('OLM is up');
  });
});

// Twenty `olm.bundle` documents, each ~11 KB on disk and ~30 MB with its aliases written out: every
// one is under the per-document limit, together they are 600 MB (render used to die at 4.5 GB).
// The file and catalog bounds refuse them at load in every command that loads a catalog.
describe('a catalog whose documents each pass the alias limit but add up', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'olm-catalog-wide-'));
    writeFileSync(join(dir, 'catalog.yaml'), expandingCatalogFile(20));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** The fifth bundle (document 6) takes the file past 128 MiB. */
  const fileRefusal = /catalog\.yaml:\d+: with document 6 \(line \d+\) the file decodes to \d+ bytes, over the limit of 134217728 \(maxFileDecodedBytes; raise it with --max-file-decoded-bytes\)/;

  it('validate: exits 1 naming the file, the document, the limit and the flag', async () => {
    const run = await runCliCaptured(['catalog', 'validate', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(fileRefusal);
  });

  it('render and graph: exit 2 with the same refusal, printing nothing', async () => {
    const render = await runCliCaptured(['catalog', 'render', dir, '-o', 'yaml']);
    expect(render.code).toBe(2);
    expect(render.stderr).toMatch(fileRefusal);
    expect(render.stdout).toBe('');
    const graph = await runCliCaptured(['catalog', 'graph', dir, '--package', 'wide']);
    expect(graph.code).not.toBe(0);
    expect(graph.stderr).toMatch(/maxFileDecodedBytes/);
    expect(graph.stdout).toBe('');
  });

  it('serve: refuses the catalog before listening', async () => {
    const run = await runCliCaptured(['catalog', 'serve', dir, '--port', '0', '--exit-after-start']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(fileRefusal);
    expect(run.stdout).toBe('');
  });

  it('up --catalog: the same bounds, raised with the same flags', async () => {
    const kubeconfig = join(dir, 'up-kubeconfig');
    const refused = await runCliCaptured(['up', '--port', '0', '--kubeconfig', kubeconfig, '--catalog', dir, '--exit-after-start']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(fileRefusal);
    const raised = await runCliCaptured(['up', '--port', '0', '--kubeconfig', kubeconfig, '--catalog', dir, '--exit-after-start', '--max-file-decoded-bytes', String(2 ** 30)]);
    expect(raised.code).not.toBe(0);
    expect(raised.stderr).toMatch(/over the limit of 268435456 \(maxCatalogDecodedBytes; raise it with --max-catalog-decoded-bytes\)/);
    expect(raised.stdout).not.toContain('OLM is up');
  });

  it('raising the file limit meets the catalog limit, which has its own flag', async () => {
    const run = await runCliCaptured(['catalog', 'validate', dir, '--max-file-decoded-bytes', String(2 ** 30)]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/catalog\.yaml:\d+: with document 10 \(line \d+\) the catalog decodes to \d+ bytes, over the limit of 268435456 \(maxCatalogDecodedBytes; raise it with --max-catalog-decoded-bytes\)/);
    const documents = await runCliCaptured(['catalog', 'validate', dir, '--max-file-decoded-bytes', String(2 ** 30), '--max-catalog-decoded-bytes', String(2 ** 30), '--max-catalog-documents', '3']);
    expect(documents.stdout).toMatch(/document 4 \(line \d+\) is document number 4 of the catalog, over the limit of 3 \(maxCatalogDocuments; raise it with --max-catalog-documents\)/);
  });

  it('a limit flag that is not a positive whole number is a usage error', async () => {
    const run = await runCliCaptured(['catalog', 'render', dir, '--max-catalog-documents', 'many']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--max-catalog-documents/);
  });
});

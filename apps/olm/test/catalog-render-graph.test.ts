import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const catalog = `---
schema: olm.package
name: myoperator
defaultChannel: stable
---
schema: olm.channel
package: myoperator
name: stable
entries:
  - name: myoperator.v0.1.1
  - name: myoperator.v0.1.2
    replaces: myoperator.v0.1.1
  - name: myoperator.v0.1.3
    replaces: myoperator.v0.1.2
    skipRange: '>=0.1.0 <0.1.3'
${['0.1.1', '0.1.2', '0.1.3']
  .map(
    (version) => `---
schema: olm.bundle
package: myoperator
name: myoperator.v${version}
image: quay.io/example/myoperator:v${version}
properties:
  - type: olm.package
    value: {packageName: myoperator, version: ${version}}
`,
  )
  .join('')}`;

describe('olm catalog render and graph', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'olm-cli-render-'));
    await writeFile(join(dir, 'catalog.yaml'), catalog);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('renders the normalised JSON stream and YAML documents', async () => {
    const json = await runCliCaptured(['catalog', 'render', dir]);
    expect(json.code).toBe(0);
    expect(json.stdout.startsWith('{\n    "schema": "olm.package",\n    "name": "myoperator",\n    "defaultChannel": "stable"\n}\n{\n    "schema": "olm.channel",')).toBe(true);
    expect(json.stdout.match(/"schema": "olm.bundle"/g)).toHaveLength(3);
    const yaml = await runCliCaptured(['catalog', 'render', dir, '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(yaml.stdout.startsWith('---\ndefaultChannel: stable\nname: myoperator\nschema: olm.package\n---\nentries:\n- name: myoperator.v0.1.1\n')).toBe(true);
  });

  it('draws the graph as Mermaid (default) and DOT', async () => {
    const mermaid = await runCliCaptured(['catalog', 'graph', dir, '--package', 'myoperator']);
    expect(mermaid.code).toBe(0);
    expect(mermaid.stdout).toContain('graph LR');
    expect(mermaid.stdout).toContain('myoperator-stable-myoperator.v0.1.3["myoperator.v0.1.3"]-- replaces --> myoperator-stable-myoperator.v0.1.2["myoperator.v0.1.2"]');
    expect(mermaid.stdout).toContain('-- "skipRange(&gt;=0.1.0 &lt;0.1.3)" --> myoperator-stable-myoperator.v0.1.1["myoperator.v0.1.1"]');
    const dot = await runCliCaptured(['catalog', 'graph', dir, '--package', 'myoperator', '--channel', 'stable', '-o', 'dot']);
    expect(dot.code).toBe(0);
    expect(dot.stdout).toContain('"myoperator/stable/myoperator.v0.1.2" -> "myoperator/stable/myoperator.v0.1.1" [label="replaces"];');
  });

  it('draws the graph as an SVG picture with --format svg, marking the installed bundle', async () => {
    const run = await runCliCaptured(['catalog', 'graph', dir, '--package', 'myoperator', '--channel', 'stable', '--format', 'svg', '--installed', 'myoperator.v0.1.2']);
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('<svg xmlns="http://www.w3.org/2000/svg" role="img"')).toBe(true);
    expect(run.stdout).toContain('<g role="listitem" aria-label="myoperator.v0.1.2, version 0.1.2, installed">');
    expect(run.stdout).toContain('<title>myoperator.v0.1.3 replaces myoperator.v0.1.2</title>');
    const unknown = await runCliCaptured(['catalog', 'graph', dir, '--package', 'myoperator', '--format', 'png']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown output format "png" (use mermaid, dot, svg)');
  });

  it('prints the upgrade path with --from, one hop per resolution', async () => {
    const run = await runCliCaptured(['catalog', 'graph', dir, '--package', 'myoperator', '--channel', 'stable', '--from', 'myoperator.v0.1.1']);
    expect(run.code).toBe(0);
    // v0.1.3's skipRange covers 0.1.1 and it is closest to the head: one hop.
    expect(run.stdout).toBe('myoperator.v0.1.1 -> myoperator.v0.1.3 (skipRange)\n');
    const atHead = await runCliCaptured(['catalog', 'graph', dir, '--package', 'myoperator', '--channel', 'stable', '--from', 'myoperator.v0.1.3']);
    expect(atHead.stdout).toBe('no upgrade from myoperator.v0.1.3 in channel stable\n');
    const noChannel = await runCliCaptured(['catalog', 'graph', dir, '--package', 'myoperator', '--from', 'myoperator.v0.1.1']);
    expect(noChannel.code).toBe(2);
  });

  it('exits 2 for unknown packages, channels, formats and unloadable catalogs', async () => {
    for (const args of [
      ['catalog', 'graph', dir, '--package', 'nope'],
      ['catalog', 'graph', dir, '--package', 'myoperator', '--channel', 'beta'],
      ['catalog', 'graph', dir],
      ['catalog', 'render', dir, '-o', 'xml'],
      ['catalog', 'render', join(dir, 'missing')],
    ]) {
      const run = await runCliCaptured(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.length).toBeGreaterThan(0);
    }
  });
});

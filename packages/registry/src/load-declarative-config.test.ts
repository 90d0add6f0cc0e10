import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { hasErrorCode } from '@olm/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDeclarativeConfig } from './load-declarative-config.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'olm-load-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function write(path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

const packageYaml = (name: string): string => `---\nschema: olm.package\nname: ${name}\ndefaultChannel: stable\n`;

describe('loadDeclarativeConfig', () => {
  it('loads multi-document YAML and JSON streams with positions, files in sorted order', async () => {
    await write(
      'b/catalog.yaml',
      `${packageYaml('b')}---\n# a comment\nschema: olm.channel\npackage: b\nname: stable\nentries:\n  - name: b.v1.0.0\n`,
    );
    await write(
      'a/index.json',
      '{"schema":"olm.package","name":"a","defaultChannel":"stable"}\n\n{\n  "schema": "olm.channel", "package": "a", "name": "stable",\n  "entries": [{"name": "a.v1.0.0", "skips": ["x"], "skipRange": "<1.0.0"}]\n}{"schema":"olm.bundle","package":"a","name":"a.v1.0.0","image":"quay.io/a:1"}',
    );
    const config = await loadDeclarativeConfig(root);
    expect(config.errors).toEqual([]);
    expect(config.files).toEqual(['a/index.json', 'b/catalog.yaml']);
    expect(config.packages.map((item) => [item.name, item.position])).toEqual([
      ['a', { file: 'a/index.json', line: 1, index: 0 }],
      ['b', { file: 'b/catalog.yaml', line: 2, index: 0 }],
    ]);
    expect(config.channels.map((item) => [item.package, item.position.line])).toEqual([
      ['a', 3],
      ['b', 7],
    ]);
    expect(config.channels[0]?.entries).toEqual([{ name: 'a.v1.0.0', replaces: '', skips: ['x'], skipRange: '<1.0.0' }]);
    expect(config.bundles[0]).toMatchObject({ name: 'a.v1.0.0', image: 'quay.io/a:1', properties: [], relatedImages: [], position: { line: 6, index: 2 } });
  });

  it('reads every file regardless of extension, and keeps unknown schemas verbatim', async () => {
    await write('pkg/notes.txt', 'schema: my.custom\npackage: pkg\nName: thing\nextra: [1, 2]\n');
    await write('pkg/empty.yaml', '');
    await write('pkg/comments.yaml', '# nothing here\n---\n# still nothing\n');
    const config = await loadDeclarativeConfig(root);
    expect(config.errors).toEqual([]);
    expect(config.others).toEqual([
      {
        schema: 'my.custom',
        package: 'pkg',
        name: 'thing',
        blob: { schema: 'my.custom', package: 'pkg', Name: 'thing', extra: [1, 2] },
        position: { file: 'pkg/notes.txt', line: 1, index: 0 },
      },
    ]);
  });

  it('finds meta keys case-insensitively and reports duplicates and non-strings', async () => {
    await write('a.yaml', 'Schema: olm.package\nNAME: a\ndefaultChannel: stable\n');
    await write('b.yaml', 'schema: olm.package\nSchema: olm.package\nname: b\n');
    await write('c.json', '{"schema": "olm.package", "name": 7}');
    await write('d.yaml', 'name: d\n');
    const config = await loadDeclarativeConfig(root);
    expect(config.packages.map((item) => item.name)).toEqual(['a']);
    expect(config.errors.map((item) => [item.file, item.line, item.message])).toEqual([
      ['b.yaml', 1, 'duplicate keys for key "schema": [Schema schema]'],
      ['c.json', 1, 'expected value for key "name" to be a string, got float64'],
      ['d.yaml', 1, `object '{"name":"d"}' is missing root schema field`],
    ]);
    for (const error of config.errors) {
      expect(error.code).toBe('OLM_REGISTRY_LOAD');
      expect(error.hint).not.toBe('');
    }
  });

  it('reports wrong field types with Go encoding/json messages', async () => {
    await write('p.yaml', 'schema: olm.package\nname: p\ndefaultChannel: 5\n');
    await write('c.yaml', 'schema: olm.channel\nname: c\npackage: p\nentries:\n  - name: x\n    skips: [1]\n');
    await write('b.yaml', 'schema: olm.bundle\nname: b\npackage: p\nproperties: {}\n');
    await write('i.yaml', 'schema: olm.package\nname: i\nicon:\n  base64data: "abc"\n  mediatype: image/png\n');
    await write('d.yaml', 'schema: olm.deprecations\npackage: p\nentries:\n  - reference: olm.bundle\n');
    const config = await loadDeclarativeConfig(root);
    expect(config.errors.map((item) => item.message)).toEqual([
      'parse bundle: json: cannot unmarshal object into Go struct field Bundle.properties of type []property.Property',
      'parse channel: json: cannot unmarshal number into Go struct field ChannelEntry.entries.skips of type string',
      'parse deprecation: json: cannot unmarshal string into Go struct field DeprecationEntry.entries.reference of type declcfg.PackageScopedReference',
      'parse package: illegal base64 data at input byte 0',
      'parse package: json: cannot unmarshal number into Go struct field Package.defaultChannel of type string',
    ]);
  });

  it('honours .indexignore files per directory, relative to them, with gitignore precedence', async () => {
    await write('.indexignore', '*.md\n/top-only.yaml\n');
    await write('README.md', '# not a catalog');
    await write('top-only.yaml', 'not: [valid');
    await write('pkg/README.md', '# ignored by the root pattern');
    await write('pkg/top-only.yaml', packageYaml('pkg'));
    await write('pkg/.indexignore', 'drafts/\n*.bak\n!keep.bak\n');
    await write('pkg/drafts/x.yaml', 'broken: [');
    await write('pkg/old.bak', 'broken: [');
    await write('pkg/keep.bak', packageYaml('kept'));
    await write('other/old.bak', packageYaml('other'));
    const config = await loadDeclarativeConfig(root);
    expect(config.errors).toEqual([]);
    expect(config.files).toEqual(['other/old.bak', 'pkg/keep.bak', 'pkg/top-only.yaml']);
  });

  it('decodes olm.bundle.object manifests and finds the CSV', async () => {
    const csv = Buffer.from('apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: a.v1.0.0\n').toString('base64');
    const crd = Buffer.from(JSON.stringify({ kind: 'CustomResourceDefinition', metadata: { name: 'x' } })).toString('base64');
    await write(
      'a.yaml',
      `schema: olm.bundle\nname: a.v1.0.0\npackage: a\nimage: ""\nproperties:\n  - type: olm.bundle.object\n    value: {data: ${crd}}\n  - type: olm.bundle.object\n    value: {data: ${csv}}\n`,
    );
    const config = await loadDeclarativeConfig(root);
    expect(config.errors).toEqual([]);
    const bundle = config.bundles[0];
    expect(bundle?.objects.map((json) => (JSON.parse(json) as { kind: string }).kind)).toEqual(['CustomResourceDefinition', 'ClusterServiceVersion']);
    expect(JSON.parse(bundle?.csvJson ?? '')).toEqual({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', metadata: { name: 'a.v1.0.0' } });
  });

  it('reports bad bundle object data with upstream message', async () => {
    await write('a.yaml', 'schema: olm.bundle\nname: a.v1\npackage: a\nproperties:\n  - type: olm.package\n    value: {packageName: a, version: 1.0.0}\n  - type: olm.bundle.object\n    value: {data: "ab$c"}\n');
    const config = await loadDeclarativeConfig(root);
    expect(config.errors.map((item) => [item.line, item.message])).toEqual([
      [1, 'read bundle objects: package "a", bundle "a.v1": parse property at index 1 as bundle object: illegal base64 data at input byte 2'],
    ]);
  });

  it('throws OLM_REGISTRY_INPUT when the root is missing or not a directory', async () => {
    await write('file.yaml', packageYaml('x'));
    for (const path of [join(root, 'missing'), join(root, 'file.yaml')]) {
      const error = await loadDeclarativeConfig(path).catch((thrown: unknown) => thrown);
      expect(hasErrorCode(error, 'OLM_REGISTRY_INPUT')).toBe(true);
    }
  });

  it('follows symbolic links to files', async () => {
    await write('real/catalog.yaml', packageYaml('linked'));
    await mkdir(join(root, 'pkg'));
    await symlink(join(root, 'real/catalog.yaml'), join(root, 'pkg/catalog.yaml'));
    await write('.indexignore', 'real/\n');
    const config = await loadDeclarativeConfig(root);
    expect(config.errors).toEqual([]);
    expect(config.packages.map((item) => [item.name, item.position.file])).toEqual([['linked', 'pkg/catalog.yaml']]);
  });
});

import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateBundle, type BundleProblem } from '../src/index.js';
import { copyOfBundle, editYaml, exampleBundles } from './example-bundles.js';

const backup = exampleBundles[0]!;
const csvFile = 'manifests/acme-backup.clusterserviceversion.yaml';
const crdFile = 'manifests/acme.example.com_backups.yaml';
const annotationsFile = 'metadata/annotations.yaml';
const annotation = (key: string) => `annotations["operators.operatorframework.io.bundle.${key}"]`;

interface BrokenCase {
  readonly rule: string;
  readonly file: string;
  readonly field: string;
  readonly message: RegExp;
  break(dir: string): Promise<void>;
}

const cases: BrokenCase[] = [
  { rule: 'annotations-file', file: annotationsFile, field: '', message: /is missing/, break: (dir) => rm(join(dir, annotationsFile)) },
  {
    rule: 'annotations-mediatype',
    file: annotationsFile,
    field: annotation('mediatype.v1'),
    message: /"plain\+v1", not "registry\+v1"/,
    break: (dir) => editYaml(dir, annotationsFile, (d) => (d.annotations['operators.operatorframework.io.bundle.mediatype.v1'] = 'plain+v1')),
  },
  {
    rule: 'annotations-directories',
    file: annotationsFile,
    field: annotation('manifests.v1'),
    message: /"deploy\/", not "manifests\/"/,
    break: (dir) => editYaml(dir, annotationsFile, (d) => (d.annotations['operators.operatorframework.io.bundle.manifests.v1'] = 'deploy/')),
  },
  {
    rule: 'annotations-package',
    file: annotationsFile,
    field: annotation('package.v1'),
    message: /is missing/,
    break: (dir) => editYaml(dir, annotationsFile, (d) => delete d.annotations['operators.operatorframework.io.bundle.package.v1']),
  },
  {
    rule: 'annotations-channels',
    file: annotationsFile,
    field: annotation('channels.v1'),
    message: /missing or empty/,
    break: (dir) => editYaml(dir, annotationsFile, (d) => (d.annotations['operators.operatorframework.io.bundle.channels.v1'] = '')),
  },
  {
    rule: 'annotations-default-channel',
    file: annotationsFile,
    field: annotation('channel.default.v1'),
    message: /"fast" is not one of the bundle's channels \(stable\)/,
    break: (dir) => editYaml(dir, annotationsFile, (d) => (d.annotations['operators.operatorframework.io.bundle.channel.default.v1'] = 'fast')),
  },
  { rule: 'manifests-csv', file: 'manifests/', field: '', message: /no ClusterServiceVersion/, break: (dir) => rm(join(dir, csvFile)) },
  { rule: 'csv-name', file: csvFile, field: 'metadata.name', message: /must have the format/, break: (dir) => editYaml(dir, csvFile, (d) => (d.metadata.name = 'acme-backup')) },
  { rule: 'csv-replaces', file: csvFile, field: 'spec.replaces', message: /invalid semver "vnext"/, break: (dir) => editYaml(dir, csvFile, (d) => (d.spec.replaces = 'acme-backup.vnext')) },
  { rule: 'csv-version', file: csvFile, field: 'spec.version', message: /"v0.1" is not a semantic version/, break: (dir) => editYaml(dir, csvFile, (d) => (d.spec.version = 'v0.1')) },
  { rule: 'csv-fields', file: csvFile, field: 'spec.displayName', message: /is missing/, break: (dir) => editYaml(dir, csvFile, (d) => delete d.spec.displayName) },
  {
    rule: 'csv-install-strategy',
    file: csvFile,
    field: 'spec.install.strategy',
    message: /"helm", not "deployment"/,
    break: (dir) => editYaml(dir, csvFile, (d) => (d.spec.install.strategy = 'helm')),
  },
  {
    rule: 'csv-install-modes',
    file: csvFile,
    field: 'spec.installModes',
    message: /none of the install modes is supported/,
    break: (dir) => editYaml(dir, csvFile, (d) => d.spec.installModes.forEach((mode: { supported: boolean }) => (mode.supported = false))),
  },
  {
    rule: 'csv-install-modes',
    file: csvFile,
    field: 'spec.installModes[1].type',
    message: /duplicate install mode OwnNamespace/,
    break: (dir) => editYaml(dir, csvFile, (d) => (d.spec.installModes[1].type = 'OwnNamespace')),
  },
  {
    rule: 'csv-examples',
    file: csvFile,
    field: 'metadata.annotations["alm-examples"][0]',
    message: /example Database \(acme.example.com\/v1\) is not an API the CSV owns/,
    break: (dir) => editYaml(dir, csvFile, (d) => (d.metadata.annotations['alm-examples'] = JSON.stringify([{ apiVersion: 'acme.example.com/v1', kind: 'Database' }]))),
  },
  {
    rule: 'bundle-owned-crds',
    file: csvFile,
    field: 'spec.customresourcedefinitions.owned[0]',
    message: /owned CRD acme.example.com\/v1, Kind=Backup not found in the bundle/,
    break: (dir) => rm(join(dir, crdFile)),
  },
  {
    rule: 'csv-min-kube-version',
    file: csvFile,
    field: 'spec.minKubeVersion',
    message: /"one-twenty" is not a version/,
    break: (dir) => editYaml(dir, csvFile, (d) => (d.spec.minKubeVersion = 'one-twenty')),
  },
  {
    rule: 'csv-owned-crds',
    file: csvFile,
    field: 'spec.customresourcedefinitions.owned[0].name',
    message: /"backups" is not <plural>.<group>/,
    break: (dir) => editYaml(dir, csvFile, (d) => (d.spec.customresourcedefinitions.owned[0].name = 'backups')),
  },
  {
    rule: 'bundle-duplicate-crd',
    file: 'manifests/z-copy.yaml',
    field: 'spec',
    message: /duplicate CRD acme.example.com\/v1, Kind=Backup \(also in manifests\/acme.example.com_backups.yaml\)/,
    break: async (dir) => writeFile(join(dir, 'manifests', 'z-copy.yaml'), await readFile(join(dir, crdFile))),
  },
  {
    rule: 'annotations-file',
    file: annotationsFile,
    field: annotation('channels.v1'),
    message: /is a list, not a string/,
    break: (dir) => editYaml(dir, annotationsFile, (d) => (d.annotations['operators.operatorframework.io.bundle.channels.v1'] = ['stable'])),
  },
  { rule: 'crd-name', file: crdFile, field: 'metadata.name', message: /not "backups.acme.example.com"/, break: (dir) => editYaml(dir, crdFile, (d) => (d.metadata.name = 'backup.acme.example.com')) },
  { rule: 'manifest-parse', file: crdFile, field: '', message: /not valid UTF-8 JSON or YAML/, break: (dir) => writeFile(join(dir, crdFile), 'kind: [unclosed\n') },
  {
    rule: 'manifest-parse',
    file: 'manifests/laughs.yaml',
    field: '',
    message: /document #1: document contains excessive aliasing/,
    // a few hundred bytes that expand to gigabytes when written out ("billion laughs")
    break: (dir) =>
      writeFile(
        join(dir, 'manifests', 'laughs.yaml'),
        `apiVersion: v1\nkind: ConfigMap\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n${Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`).join('\n')}\n`,
      ),
  },
  {
    rule: 'bundle-layout',
    file: 'manifests/extra/role.yaml',
    field: '',
    message: /subdirectory of manifests/,
    break: async (dir) => {
      await mkdir(join(dir, 'manifests', 'extra'));
      await writeFile(join(dir, 'manifests', 'extra', 'role.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
    },
  },
];

const errorsOf = (problems: readonly BundleProblem[]) => problems.filter((problem) => problem.severity === 'error');

describe('validateBundle', () => {
  it.each(exampleBundles)('finds no errors in the example bundle %s', async (dir) => {
    const validation = await validateBundle(dir);
    expect(errorsOf(validation.problems)).toEqual([]);
    expect(validation.valid).toBe(true);
  });

  it.each(cases.map((broken) => [`${broken.rule} (${broken.field || broken.file})`, broken] as const))('reports %s with its file and field', async (_name, broken) => {
    const dir = await copyOfBundle(backup);
    await broken.break(dir);
    const validation = await validateBundle(dir);
    expect(validation.valid).toBe(false);
    const found = errorsOf(validation.problems).find((problem) => problem.rule === broken.rule && problem.file === broken.file && problem.field === broken.field);
    expect(found, JSON.stringify(validation.problems, null, 2)).toBeDefined();
    expect(found!.message).toMatch(broken.message);
    expect(found!.fix).not.toBe('');
  });

  it('warns about optional CSV fields and examples without failing', async () => {
    const dir = await copyOfBundle(backup);
    await editYaml(dir, csvFile, (d) => delete d.spec.icon);
    const validation = await validateBundle(dir);
    expect(validation.valid).toBe(true);
    expect(validation.problems).toContainEqual(expect.objectContaining({ severity: 'warning', rule: 'csv-fields', file: csvFile, field: 'spec.icon' }));
  });

  it('refuses a directory past its file limit, naming the limit and the flag', async () => {
    await expect(validateBundle(backup, { maxFiles: 3, maxFileBytes: 1 << 20, maxTotalBytes: 1 << 20 })).rejects.toThrow(/more than 3 entries, past the limit maxFiles of 3; raise it with --max-files/);
    await expect(validateBundle(backup, { maxFiles: 100, maxFileBytes: 1 << 20, maxTotalBytes: 2000 })).rejects.toThrow(/past the limit maxTotalBytes of 2000; raise it with --max-total-bytes/);
  });
});

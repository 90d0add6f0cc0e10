import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerRegistryBinary, startDockerRegistry, type DockerRegistry } from '@olm/testing';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushBackupBundle } from './example-images.js';
import { runCliCaptured } from './run-cli.js';

const binary = dockerRegistryBinary();

async function templateFile(content: unknown): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'olm-template-')), 'template.yaml');
  await writeFile(file, typeof content === 'string' ? content : stringifyYaml(content));
  return file;
}

const blobs = (stdout: string) => stdout.split(/^---\n/m).filter(Boolean).map((text) => parseYaml(text) as Record<string, any>);
const channels = (stdout: string) =>
  Object.fromEntries(blobs(stdout).filter((blob) => blob.schema === 'olm.channel').map((blob) => [blob.name, blob.entries]));

describe('olm catalog template --help', () => {
  it.each(['basic', 'semver'])('olm catalog template %s --help', async (kind) => {
    const run = await runCliCaptured(['catalog', 'template', kind, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: olm catalog template ${kind}`);
    expect(run.stdout).toContain('--max-bundles');
  });
});

describe.skipIf(!binary)('olm catalog template with bundle images in a real registry', () => {
  let registry: DockerRegistry;
  const images: Record<string, string> = {};
  beforeAll(async () => {
    registry = await startDockerRegistry(binary!, await mkdtemp(join(tmpdir(), 'olm-template-registry-')));
    for (const version of ['0.1.0', '0.1.1', '0.2.0', '1.0.0']) images[version] = await pushBackupBundle(`${registry.host}/acme/acme-backup-bundle`, version);
  }, 60_000);
  afterAll(async () => registry?.stop());

  it('renders a semver template: minor channels linked as upstream links them, default the most stable, bundles read from their images', async () => {
    const file = await templateFile({
      Schema: 'olm.semver',
      Candidate: { Bundles: ['0.1.0', '0.1.1', '0.2.0', '1.0.0'].map((version) => ({ Image: images[version] })) },
      Fast: { Bundles: [{ Image: images['0.1.1'] }, { Image: images['0.2.0'] }] },
      Stable: { Bundles: [{ Image: images['0.2.0'] }] },
    });
    const run = await runCliCaptured(['catalog', 'template', 'semver', file, '-o', 'yaml']);
    expect(run.code, run.stderr).toBe(0);
    const rendered = blobs(run.stdout);
    expect(rendered[0]).toEqual({ schema: 'olm.package', name: 'acme-backup', defaultChannel: 'stable-v0.2' });
    expect(channels(run.stdout)).toEqual({
      'candidate-v0.1': [{ name: 'acme-backup.v0.1.0' }, { name: 'acme-backup.v0.1.1', skips: ['acme-backup.v0.1.0'] }],
      'candidate-v0.2': [{ name: 'acme-backup.v0.2.0', replaces: 'acme-backup.v0.1.1', skips: ['acme-backup.v0.1.0'] }],
      'candidate-v1.0': [{ name: 'acme-backup.v1.0.0' }],
      'fast-v0.1': [{ name: 'acme-backup.v0.1.1' }],
      'fast-v0.2': [{ name: 'acme-backup.v0.2.0', replaces: 'acme-backup.v0.1.1' }],
      'stable-v0.2': [{ name: 'acme-backup.v0.2.0' }],
    });
    const bundles = rendered.filter((blob) => blob.schema === 'olm.bundle');
    expect(bundles.map((bundle) => [bundle.name, bundle.image])).toEqual(['0.1.0', '0.1.1', '0.2.0', '1.0.0'].map((version) => [`acme-backup.v${version}`, images[version]]));
    expect(bundles[3]!.properties).toContainEqual({ type: 'olm.package', value: { packageName: 'acme-backup', version: '1.0.0' } });
    expect(bundles[3]!.relatedImages).toContainEqual({ name: 'manager', image: 'registry.example.com/acme/acme-backup-operator:v1.0.0' });
  });

  it('renders major channels when GenerateMajorChannels is set', async () => {
    const file = await templateFile({ schema: 'olm.semver', generateMajorChannels: true, candidate: { bundles: ['0.1.0', '0.2.0', '1.0.0'].map((version) => ({ image: images[version] })) } });
    const run = await runCliCaptured(['catalog', 'template', 'semver', file, '-o', 'yaml']);
    expect(run.code, run.stderr).toBe(0);
    expect(blobs(run.stdout)[0]).toMatchObject({ defaultChannel: 'candidate-v1' });
    expect(channels(run.stdout)).toEqual({
      'candidate-v0': [{ name: 'acme-backup.v0.1.0' }, { name: 'acme-backup.v0.2.0', replaces: 'acme-backup.v0.1.0' }],
      'candidate-v1': [{ name: 'acme-backup.v1.0.0' }],
    });
  });

  it('renders a basic template: bundle entries giving an image become the bundles of those images, the rest is kept', async () => {
    const entries = [
      { schema: 'olm.package', name: 'acme-backup', defaultChannel: 'stable' },
      { schema: 'olm.channel', package: 'acme-backup', name: 'stable', entries: [{ name: 'acme-backup.v0.1.0' }, { name: 'acme-backup.v0.2.0', replaces: 'acme-backup.v0.1.0' }] },
      { schema: 'olm.bundle', image: images['0.1.0'] },
      { schema: 'olm.bundle', image: images['0.2.0'] },
    ];
    const run = await runCliCaptured(['catalog', 'template', 'basic', await templateFile({ schema: 'olm.template.basic', entries })]);
    expect(run.code, run.stderr).toBe(0);
    const rendered = run.stdout.trim().split(/\n(?=\{)/).map((text) => JSON.parse(text));
    expect(rendered.slice(0, 2)).toEqual([entries[0], entries[1]]);
    expect(rendered.slice(2).map((bundle) => [bundle.schema, bundle.name, bundle.package, bundle.image])).toEqual([
      ['olm.bundle', 'acme-backup.v0.1.0', 'acme-backup', images['0.1.0']],
      ['olm.bundle', 'acme-backup.v0.2.0', 'acme-backup', images['0.2.0']],
    ]);
    // the same FBC as `olm catalog render` gives for the bundle image
    const direct = await runCliCaptured(['catalog', 'render', images['0.1.0']!]);
    expect(rendered[2]).toEqual(JSON.parse(direct.stdout));
  });

  it.each([
    ['semver', { schema: 'olm.semver', Candidate: { Bundles: [{ Image: 'x' }] }, Beta: {} }, /template\.yaml: Beta: unknown field; the fields are schema, generateMajorChannels/],
    ['semver', { schema: 'olm.semver', GenerateMajorChannels: 'yes' }, /template\.yaml: generateMajorChannels: must be true or false, found string "yes"/],
    ['semver', { schema: 'olm.semver', defaultChannelTypePreference: 'major' }, /template\.yaml: defaultChannelTypePreference: set to 'major' doesn't make sense if not generating major-version channels; set generateMajorChannels: true/],
    ['semver', { schema: 'olm.semver', Candidate: { Bundles: [{ Image: '' }] } }, /template\.yaml: Candidate\.Bundles\[0\]\.Image: must be a bundle image reference/],
    ['semver', { schema: 'olm.semver' }, /template\.yaml: Candidate, Fast, Stable: no bundles specified/],
    ['basic', { schema: 'olm.semver', entries: [] }, /template\.yaml: schema: template has unknown schema \("olm.semver"\), should be "olm.template.basic"/],
    ['basic', { schema: 'olm.template.basic', entries: [{ schema: 'olm.bundle', image: 'x', package: 'p' }] }, /template\.yaml: entries\[0\]: unexpected fields present in basic template bundle \(package\)/],
    ['basic', { schema: 'olm.template.basic', entries: [{ schema: 'olm.package', name: 'p' }, { schema: 'olm.channel', name: 7 }] }, /template\.yaml: entries\[1\]: expected value for key "name" to be a string/],
    ['basic', 'schema: [', /template\.yaml: not YAML or JSON/],
  ])('refuses a bad %s template, naming the file and the field (%#)', async (kind, content, message) => {
    const run = await runCliCaptured(['catalog', 'template', kind, await templateFile(content)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
  });

  it('refuses a template naming more bundle images than --max-bundles, naming the flag', async () => {
    const tooMany = await templateFile({ schema: 'olm.semver', Candidate: { Bundles: [{ Image: images['0.1.0'] }, { Image: images['0.2.0'] }] } });
    const run = await runCliCaptured(['catalog', 'template', 'semver', tooMany, '--max-bundles', '1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/template \S+template\.yaml names 2 bundle images, past the limit maxBundles of 1; raise it with --max-bundles/);
  });
});

import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOciRegistryClient, extractBundleFiles } from '@olm/bundle-puller/registry';
import { dockerRegistryBinary, htpasswdLine, startDockerRegistry, type DockerRegistry } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));
const bundleDir = join(examples, 'bundles', 'acme-backup.v0.1.0');
const catalogDir = join(examples, 'catalog');
const binary = dockerRegistryBinary();
const htpasswd = binary ? htpasswdLine('pusher', 's3cret') : undefined;

describe('olm bundle validate', () => {
  it('passes the example bundle and exits 0', async () => {
    const run = await runCliCaptured(['bundle', 'validate', bundleDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${bundleDir} is a valid registry+v1 bundle`);
  });

  it('lists each problem with file, field, rule and fix, and exits 1', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'olm-cli-bundle-')), 'bundle');
    await cp(bundleDir, dir, { recursive: true });
    const csv = join(dir, 'manifests', 'acme-backup.clusterserviceversion.yaml');
    await writeFile(csv, (await readFile(csv, 'utf8')).replace('version: 0.1.0', 'version: v0.1'));
    const run = await runCliCaptured(['bundle', 'validate', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('ERROR manifests/acme-backup.clusterserviceversion.yaml: spec.version: "v0.1" is not a semantic version [csv-version]; fix: set it to MAJOR.MINOR.PATCH');
    expect(run.stderr).toContain(`invalid bundle ${dir}: 1 error(s)`);
    const json = await runCliCaptured(['bundle', 'validate', dir, '-o', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).problems).toContainEqual(expect.objectContaining({ severity: 'error', rule: 'csv-version', file: 'manifests/acme-backup.clusterserviceversion.yaml', field: 'spec.version' }));
  });

  it('exits 2 on bad usage and unreadable input', async () => {
    for (const args of [
      ['bundle', 'validate', bundleDir, '-o', 'xml'],
      ['bundle', 'validate', join(bundleDir, 'missing')],
      ['bundle', 'validate', bundleDir, '--max-files', '2'],
      ['bundle', 'build', bundleDir],
      ['bundle', 'build', bundleDir, '--tag', 'Not A Reference'],
      ['bundle', 'build', bundleDir, '--oci-layout', join(bundleDir, 'metadata', 'annotations.yaml')],
    ]) {
      const run = await runCliCaptured(args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr.length).toBeGreaterThan(0);
    }
  });

  it.each([['bundle', 'validate'], ['bundle', 'build'], ['catalog', 'build'], ['catalog', 'render']])('olm %s %s --help', async (...command) => {
    const run = await runCliCaptured([...command, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: olm ${command.join(' ')}`);
  });
});

describe('olm bundle build --oci-layout', () => {
  it('writes the same image digest every time', async () => {
    const digests: string[] = [];
    for (const layout of [await mkdtemp(join(tmpdir(), 'olm-layout-')), await mkdtemp(join(tmpdir(), 'olm-layout-'))]) {
      const run = await runCliCaptured(['bundle', 'build', bundleDir, '--oci-layout', layout]);
      expect(run.code, run.stderr).toBe(0);
      const index = JSON.parse(await readFile(join(layout, 'index.json'), 'utf8'));
      expect(index.manifests[0].digest).toBe(run.stdout.trim());
      digests.push(run.stdout.trim());
    }
    expect(digests[1]).toBe(digests[0]);
  });
});

describe('olm catalog render of a bundle directory', () => {
  it('renders one olm.bundle with its manifests as olm.bundle.object properties', async () => {
    const run = await runCliCaptured(['catalog', 'render', bundleDir]);
    expect(run.code, run.stderr).toBe(0);
    const bundle = JSON.parse(run.stdout);
    expect(bundle).toMatchObject({ schema: 'olm.bundle', name: 'acme-backup.v0.1.0', package: 'acme-backup', image: '' });
    expect(bundle.properties.filter((property: { type: string }) => property.type === 'olm.bundle.object')).toHaveLength(2);
  });
});

describe.skipIf(!binary)('olm bundle build, catalog build and catalog render with a real registry', () => {
  let registry: DockerRegistry;
  beforeAll(async () => {
    registry = await startDockerRegistry(binary!, await mkdtemp(join(tmpdir(), 'olm-cli-registry-')));
  });
  afterAll(async () => registry?.stop());

  it('pushes the example bundle, which the bundle puller pulls back with the same manifests', async () => {
    const reference = `${registry.host}/acme/acme-backup-bundle:v0.1.0`;
    const run = await runCliCaptured(['bundle', 'build', bundleDir, '--tag', reference]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^${reference.replace(/[.]/g, '\\.')}@sha256:[0-9a-f]{64}\\n$`));
    expect(run.stderr).toContain(`pushing ${reference}: 3/3 manifest`);
    expect(run.stderr).toContain(`pushed the bundle image ${reference}`);
    const pulled = await createOciRegistryClient().pullImage(reference);
    const files = await extractBundleFiles(pulled.layers, reference);
    expect([...files.keys()].sort()).toEqual(['manifests/acme-backup.clusterserviceversion.yaml', 'manifests/acme.example.com_backups.yaml', 'metadata/annotations.yaml']);
    for (const [path, bytes] of files) expect(bytes.equals(await readFile(join(bundleDir, path))), path).toBe(true);

    const rendered = await runCliCaptured(['catalog', 'render', reference]);
    expect(rendered.code, rendered.stderr).toBe(0);
    expect(JSON.parse(rendered.stdout)).toMatchObject({ schema: 'olm.bundle', name: 'acme-backup.v0.1.0', image: reference });
  });

  it('builds the example catalog into an image whose render is the directory’s, byte for byte', async () => {
    const reference = `${registry.host}/acme/catalog:latest`;
    const build = await runCliCaptured(['catalog', 'build', catalogDir, '--tag', reference]);
    expect(build.code, build.stderr).toBe(0);
    for (const format of ['json', 'yaml']) {
      const fromImage = await runCliCaptured(['catalog', 'render', reference, '-o', format]);
      const fromDirectory = await runCliCaptured(['catalog', 'render', catalogDir, '-o', format]);
      expect(fromImage.code, fromImage.stderr).toBe(0);
      expect(fromImage.stdout).toBe(fromDirectory.stdout);
    }
  });

  it('stops an image past a render limit, naming the flag that raises it', async () => {
    const reference = `${registry.host}/acme/catalog:limited`;
    expect((await runCliCaptured(['catalog', 'build', catalogDir, '--tag', reference])).code).toBe(0);
    const run = await runCliCaptured(['catalog', 'render', reference, '--image-max-file-bytes', '1000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/over its limit of 1000 bytes in one file: file configs\/acme-\w+\/catalog.yaml .* raise olm catalog render --image-max-file-bytes/);
  });
});

describe.skipIf(!htpasswd)('olm bundle build to a registry that asks for credentials', () => {
  let registry: DockerRegistry;
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'olm-cli-private-registry-'));
    await writeFile(join(directory, 'htpasswd'), `${htpasswd}\n`);
    registry = await startDockerRegistry(binary!, directory, { htpasswd: join(directory, 'htpasswd') });
  });
  afterAll(async () => registry?.stop());

  it('refuses without credentials, saying how to give them, then pushes with a docker config.json', async () => {
    const reference = `${registry.host}/acme/private-bundle:v0.1.0`;
    const empty = join(directory, 'empty-config.json');
    await writeFile(empty, JSON.stringify({ auths: {} }));
    const refused = await runCliCaptured(['bundle', 'build', bundleDir, '--tag', reference, '--registry-config', empty]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`not allowed to push ${reference}: registry ${registry.host} asks for credentials and none were given; give credentials for ${registry.host}`);
    expect(refused.stderr).toContain('--registry-config FILE');

    const config = join(directory, 'config.json');
    await writeFile(config, JSON.stringify({ auths: { [registry.host]: { auth: Buffer.from('pusher:s3cret').toString('base64') } } }));
    const pushed = await runCliCaptured(['bundle', 'build', bundleDir, '--tag', reference, '--registry-config', config]);
    expect(pushed.code, pushed.stderr).toBe(0);
    const rendered = await runCliCaptured(['catalog', 'render', reference, '--registry-config', config]);
    expect(rendered.code, rendered.stderr).toBe(0);
    expect(JSON.parse(rendered.stdout)).toMatchObject({ schema: 'olm.bundle', name: 'acme-backup.v0.1.0', image: reference });
  });
});

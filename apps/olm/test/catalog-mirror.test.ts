import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerRegistryBinary, startDockerRegistry, type DockerRegistry } from '@olm/testing';
import { parseAllDocuments, stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushBackupBundle, pushMultiArchImage } from './example-images.js';
import { runCliCaptured } from './run-cli.js';

const binary = dockerRegistryBinary();
const manifestAccept = 'application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json';

/** The counts of a mirror's summary line on stderr. */
function summaryOf(stderr: string) {
  const match = /(\d+)\/(\d+) images \((\d+) manifests\), (\d+) blobs copied \((\d+) bytes\), (\d+) blobs and (\d+) manifests already at the target/.exec(stderr);
  if (!match) throw new Error(`no summary line in: ${stderr}`);
  const [imagesDone, imagesTotal, manifests, blobsCopied, bytesCopied, blobsSkipped, manifestsSkipped] = match.slice(1).map(Number) as number[];
  return { imagesDone, imagesTotal, manifests, blobsCopied, bytesCopied, blobsSkipped, manifestsSkipped };
}

const bundlesOf = (rendered: string) => rendered.trim().split(/\n(?=\{)/).map((text) => JSON.parse(text)).filter((blob) => blob.schema === 'olm.bundle');

/** Whether `reference` (`host/repo@sha256:…`) is at its registry, and the digests of the manifests an index there lists. */
async function manifestAt(reference: string): Promise<{ status: number; children: string[] }> {
  const [name, digest] = reference.split('@') as [string, string];
  const [host, ...path] = name.split('/');
  const response = await fetch(`http://${host}/v2/${path.join('/')}/manifests/${digest}`, { headers: { Accept: manifestAccept } });
  const body = response.ok ? ((await response.json()) as { manifests?: Array<{ digest: string }> }) : {};
  return { status: response.status, children: (body.manifests ?? []).map((child) => child.digest) };
}

describe('olm catalog mirror --help', () => {
  it('documents the command', async () => {
    const run = await runCliCaptured(['catalog', 'mirror', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: olm catalog mirror');
    for (const flag of ['--to', '--package', '--channel', '--version-range', '--max-images', '--max-blob-bytes', '--max-total-bytes']) expect(run.stdout).toContain(flag);
  });
});

describe.skipIf(!binary)('olm catalog mirror between two real registries and an OCI layout', () => {
  let source: DockerRegistry;
  let target: DockerRegistry;
  let catalog: string;
  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'olm-mirror-'));
    source = await startDockerRegistry(binary!, join(root, 'source'));
    target = await startDockerRegistry(binary!, join(root, 'target'));
    const images: Record<string, string> = {};
    for (const version of ['0.1.0', '0.2.0']) {
      const operator = `${source.host}/acme/acme-backup-operator:v${version}`;
      await pushMultiArchImage(source.url, operator);
      images[version] = await pushBackupBundle(`${source.host}/acme/acme-backup-bundle`, version, operator);
    }
    const entries = [
      { schema: 'olm.package', name: 'acme-backup', defaultChannel: 'stable' },
      { schema: 'olm.channel', package: 'acme-backup', name: 'stable', entries: [{ name: 'acme-backup.v0.1.0' }, { name: 'acme-backup.v0.2.0', replaces: 'acme-backup.v0.1.0' }] },
      { schema: 'olm.channel', package: 'acme-backup', name: 'candidate', entries: [{ name: 'acme-backup.v0.2.0' }] },
      { schema: 'olm.bundle', image: images['0.1.0'] },
      { schema: 'olm.bundle', image: images['0.2.0'] },
    ];
    await writeFile(join(root, 'template.yaml'), stringifyYaml({ schema: 'olm.template.basic', entries }));
    const rendered = await runCliCaptured(['catalog', 'template', 'basic', join(root, 'template.yaml')]);
    expect(rendered.code, rendered.stderr).toBe(0);
    await mkdir(join(root, 'catalog'));
    await writeFile(join(root, 'catalog', 'catalog.json'), rendered.stdout);
    catalog = `${source.host}/acme/catalog:v1`;
    const built = await runCliCaptured(['catalog', 'build', join(root, 'catalog'), '--tag', catalog]);
    expect(built.code, built.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await source?.stop();
    await target?.stop();
  });

  it('copies the catalog, its bundle images and their multi-arch operator images by digest, and rewrites the catalog to them', async () => {
    const run = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `${target.host}/mirror`]);
    expect(run.code, run.stderr).toBe(0);
    // 1 catalog + 2 bundles + 2 operator indexes of 2 manifests each
    expect(summaryOf(run.stderr)).toMatchObject({ imagesDone: 5, imagesTotal: 5, manifests: 9, blobsSkipped: 0, manifestsSkipped: 0 });
    const documents = parseAllDocuments(run.stdout).map((document) => document.toJS());
    const catalogImage = documents[0].spec.image as string;
    expect(catalogImage).toMatch(new RegExp(`^${target.host}/mirror/acme/catalog@sha256:[0-9a-f]{64}$`));
    expect(documents[1]).toEqual({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: 'catalog' }, spec: { source: { type: 'Image', image: { ref: catalogImage } } } });
    expect(documents[0]).toMatchObject({ kind: 'CatalogSource', metadata: { name: 'catalog', namespace: 'olm' }, spec: { sourceType: 'grpc', image: catalogImage } });
    const mirrors = [`${source.host}/acme/acme-backup-operator`].map((name) => ({ source: name, mirrors: [`${target.host}/mirror/acme/acme-backup-operator`] }));
    expect(documents[2]).toEqual({ apiVersion: 'config.openshift.io/v1', kind: 'ImageDigestMirrorSet', metadata: { name: 'catalog-mirror' }, spec: { imageDigestMirrors: mirrors } });
    expect(documents[3]).toMatchObject({ kind: 'ImageTagMirrorSet', spec: { imageTagMirrors: mirrors } });
    expect(run.stdout).toContain(`# [[registry]]\n# location = "${source.host}/acme/acme-backup-operator"`);

    const rendered = await runCliCaptured(['catalog', 'render', catalogImage]);
    expect(rendered.code, rendered.stderr).toBe(0);
    const bundles = bundlesOf(rendered.stdout);
    expect(bundles.map((bundle) => bundle.name)).toEqual(['acme-backup.v0.1.0', 'acme-backup.v0.2.0']);
    for (const bundle of bundles) {
      const references = [bundle.image, ...bundle.relatedImages.map((related: { image: string }) => related.image)];
      expect(references.length).toBe(3);
      for (const reference of references) {
        expect(reference).toMatch(new RegExp(`^${target.host}/mirror/acme/acme-backup-(bundle|operator)@sha256:[0-9a-f]{64}$`));
        const found = await manifestAt(reference);
        expect(found.status, reference).toBe(200);
        for (const child of found.children) expect((await manifestAt(`${reference.split('@')[0]}@${child}`)).status).toBe(200);
      }
    }
    const operator = bundles[0].relatedImages.find((related: { name: string }) => related.name === 'manager').image;
    expect((await manifestAt(operator)).children).toHaveLength(2);
    // the source catalog image itself is there too, by its digest
    const original = await fetch(`${source.url}/v2/acme/catalog/manifests/v1`, { method: 'HEAD', headers: { Accept: manifestAccept } });
    expect((await manifestAt(`${target.host}/mirror/acme/catalog@${original.headers.get('docker-content-digest')}`)).status).toBe(200);

    const again = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `${target.host}/mirror`]);
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again.stderr)).toMatchObject({ blobsCopied: 0, bytesCopied: 0, manifestsSkipped: 5 });
  });

  it('mirrors only what --channel and --version-range select, and refuses filters that select nothing or name what is not there', async () => {
    const run = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `${target.host}/filtered`, '--package', 'acme-backup', '--channel', 'stable', '--version-range', '>=0.2.0']);
    expect(run.code, run.stderr).toBe(0);
    const catalogImage = parseAllDocuments(run.stdout)[0]!.toJS().spec.image;
    const rendered = await runCliCaptured(['catalog', 'render', catalogImage, '-o', 'yaml']);
    const blobs = parseAllDocuments(rendered.stdout).map((document) => document.toJS());
    expect(blobs.filter((blob) => blob.schema === 'olm.channel')).toEqual([{ schema: 'olm.channel', package: 'acme-backup', name: 'stable', entries: [{ name: 'acme-backup.v0.2.0', replaces: 'acme-backup.v0.1.0' }] }]);
    expect(blobs.filter((blob) => blob.schema === 'olm.bundle').map((blob) => blob.name)).toEqual(['acme-backup.v0.2.0']);
    expect((await manifestAt(`${target.host}/filtered/acme/acme-backup-bundle@${(await fetch(`${source.url}/v2/acme/acme-backup-bundle/manifests/v0.1.0`, { method: 'HEAD', headers: { Accept: manifestAccept } })).headers.get('docker-content-digest')}`)).status).toBe(404);

    for (const [args, message] of [
      [['--package', 'acme-nothing'], /--package acme-nothing: not in the catalog, which has acme-backup/],
      [['--channel', 'fast'], /--channel fast: no package of the catalog has such a channel; channels found: candidate, stable/],
      [['--version-range', '>=9.0.0'], /the filters \(--package, --channel, --version-range\) select no bundle of the catalog/],
      [['--version-range', 'soon'], /--version-range "soon" is not a version range/],
    ] as const) {
      const refused = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `${target.host}/refused`, ...args]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
  });

  it('mirrors a catalog directory, and names the bundle whose image is missing and how to leave it out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'olm-mirror-dir-'));
    const rendered = await runCliCaptured(['catalog', 'render', catalog]);
    await writeFile(join(dir, 'catalog.json'), rendered.stdout);
    const run = await runCliCaptured(['catalog', 'mirror', dir, '--to', `${target.host}/from-dir`, '--version-range', '<0.2.0']);
    expect(run.code, run.stderr).toBe(0);
    expect(parseAllDocuments(run.stdout)[0]!.toJS().spec.image).toMatch(new RegExp(`^${target.host}/from-dir/catalog@sha256:`));

    await writeFile(join(dir, 'catalog.json'), rendered.stdout.replaceAll(`${source.host}/acme/acme-backup-bundle:v0.2.0`, `${source.host}/acme/acme-backup-bundle:v9.9.9`));
    const missing = await runCliCaptured(['catalog', 'mirror', dir, '--to', `${target.host}/from-dir`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`copying ${source.host}/acme/acme-backup-bundle:v9.9.9 (the image of bundle acme-backup.v0.2.0 of package acme-backup): `);
    expect(missing.stderr).toMatch(/HTTP 404 .*; to mirror without it, leave the bundle out with --package, --channel or --version-range/);
  });

  it('stops at --max-images and --max-blob-bytes, naming the limit and the flag', async () => {
    const planned = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `${target.host}/limited`, '--max-images', '4']);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toMatch(/the mirror needs 5 images \(the catalog and 4 images its bundles name\), past the limit maxImages of 4; raise it with --max-images/);
    // the manifests of multi-arch indexes count too, over the whole run
    const copied = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `${target.host}/limited`, '--max-images', '6']);
    expect(copied.code).toBe(1);
    expect(copied.stderr).toMatch(/copying \S+acme-backup-operator@sha256:[0-9a-f]{64} makes 7 manifests, past the limit maxImages of 6; raise it with --max-images/);
    const blobs = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `${target.host}/limited`, '--max-blob-bytes', '4096']);
    expect(blobs.code).toBe(1);
    expect(blobs.stderr).toMatch(/blob sha256:[0-9a-f]{64} of \S+ is \d+ bytes, past the limit maxBlobBytes of 4096; raise it with --max-blob-bytes/);
    expect(blobs.stderr).toMatch(/stopped after .*; run the same command again to continue/);
  });

  it('resumes an interrupted copy: after a blob failed, a rerun copies only the rest', async () => {
    // the last image copied is the v0.2.0 operator: break its arm64 layer at the source
    type Manifest = { manifests: Array<{ digest: string }>; layers: Array<{ digest: string; size: number }> };
    const index = (await (await fetch(`${source.url}/v2/acme/acme-backup-operator/manifests/v0.2.0`, { headers: { Accept: manifestAccept } })).json()) as Manifest;
    const arm = (await (await fetch(`${source.url}/v2/acme/acme-backup-operator/manifests/${index.manifests[1]!.digest}`, { headers: { Accept: manifestAccept } })).json()) as Manifest;
    const layer = arm.layers[0]!.digest.slice('sha256:'.length);
    const data = join(source.storage, 'docker', 'registry', 'v2', 'blobs', 'sha256', layer.slice(0, 2), layer, 'data');
    await cp(data, `${data}.good`);
    const bytes = await readFile(data);
    bytes[bytes.length - 1]! ^= 0xff;
    await writeFile(data, bytes);
    const failed = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `${target.host}/resumed`]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`digest mismatch for blob sha256:${layer}`);
    const first = summaryOf(failed.stderr);
    expect(first.imagesDone).toBe(4);

    await cp(`${data}.good`, data);
    const resumed = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `${target.host}/resumed`]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const second = summaryOf(resumed.stderr);
    expect(first.blobsCopied).toBeGreaterThan(10);
    // only the broken layer was left to copy: the images copied before are not walked again, its config blob is not sent again
    expect(second).toMatchObject({ blobsCopied: 1, bytesCopied: arm.layers[0]!.size, blobsSkipped: 1, manifestsSkipped: 5 });
  });

  it('mirrors into an OCI layout, which pushes to a registry from there with the source registry gone', async () => {
    const layout = join(await mkdtemp(join(tmpdir(), 'olm-mirror-layout-')), 'layout');
    const toLayout = await runCliCaptured(['catalog', 'mirror', catalog, '--to', `oci-layout:${layout}`]);
    expect(toLayout.code, toLayout.stderr).toBe(0);
    expect(toLayout.stderr).toContain(`olm catalog mirror oci-layout:${layout} --to REGISTRY`);
    const index = JSON.parse(await readFile(join(layout, 'index.json'), 'utf8'));
    expect(index.manifests.map((entry: { annotations: Record<string, string> }) => entry.annotations['org.opencontainers.image.ref.name'])).toContain(`${source.host}/acme/acme-backup-operator:v0.1.0`);

    await source.stop();
    const pushed = await runCliCaptured(['catalog', 'mirror', `oci-layout:${layout}`, '--to', `${target.host}/airgap`]);
    expect(pushed.code, pushed.stderr).toBe(0);
    const catalogImage = parseAllDocuments(pushed.stdout)[0]!.toJS().spec.image;
    expect(catalogImage).toMatch(new RegExp(`^${target.host}/airgap/acme/catalog@sha256:`));
    const bundles = bundlesOf((await runCliCaptured(['catalog', 'render', catalogImage])).stdout);
    expect(bundles).toHaveLength(2);
    for (const bundle of bundles) {
      for (const reference of [bundle.image, ...bundle.relatedImages.map((related: { image: string }) => related.image)]) {
        expect(reference.startsWith(`${target.host}/airgap/acme/`)).toBe(true);
        expect((await manifestAt(reference)).status, reference).toBe(200);
      }
    }
  });
});

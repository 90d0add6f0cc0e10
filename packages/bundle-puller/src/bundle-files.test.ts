import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { gzip, tarLayer, thingCsvYaml as csvYaml, zeroFileLayer } from '../test/oci-images.js';
import { BundleImageBudget, defaultBundleImageLimits } from './bundle-image-limits.js';
import { BundleImageErrorCodes, BundleUnpackErrorCodes } from './bundle-image-errors.js';
import { bundleDigestAnnotation, bundleImageAnnotation, configMapMaxBytes, manifestsFromConfigMap, parseManifestFile, unpackedConfigMap, unpackedConfigMapName } from './bundle-files.js';
import { applyLayer, extractBundleFiles, normalizeTarPath, readLayerEntries } from './layer-entries.js';

const crdJson = JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.acme.example.com' }, spec: {} });

const text = (files: Map<string, Buffer>) => Object.fromEntries([...files].map(([path, bytes]) => [path, bytes.toString('utf8')]));

function thrown(action: () => unknown): Error & { code?: string } {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('reading layers', () => {
  it('reads plain and gzip-compressed tar layers alike, with names normalised', async () => {
    const tar = await tarLayer([
      { name: './manifests/', type: 'directory' },
      { name: './manifests/csv.yaml', content: csvYaml },
      { name: '/metadata/annotations.yaml', content: 'annotations: {}\n' },
    ]);
    for (const bytes of [tar, gzip(tar)]) {
      const entries = await readLayerEntries(bytes, 'layer');
      expect(entries.map((entry) => [entry.path, entry.type])).toEqual([
        ['manifests', 'directory'],
        ['manifests/csv.yaml', 'file'],
        ['metadata/annotations.yaml', 'file'],
      ]);
      expect(entries[1]!.data.toString()).toBe(csvYaml);
    }
  });

  const gnuTar = (() => {
    try {
      return execFileSync('tar', ['--version'], { encoding: 'utf8' }).includes('GNU tar');
    } catch {
      return false;
    }
  })();

  it.skipIf(!gnuTar)('reads what GNU tar writes, long names (GNU and PAX headers) included', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'olm-gnu-tar-'));
    try {
      const long = `${'a-very-long-manifest-file-name-'.repeat(5)}.yaml`;
      mkdirSync(join(directory, 'root', 'manifests'), { recursive: true });
      writeFileSync(join(directory, 'root', 'manifests', long), csvYaml);
      for (const format of ['gnu', 'posix']) {
        execFileSync('tar', ['-C', join(directory, 'root'), `--format=${format}`, '-czf', join(directory, `${format}.tgz`), 'manifests']);
        const files = await extractBundleFiles([{ digest: format, bytes: readFileSync(join(directory, `${format}.tgz`)) }], 'img');
        expect(text(files)).toEqual({ [`manifests/${long}`]: csvYaml });
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('says which layer is not a tar archive', async () => {
    await expect(readLayerEntries(Buffer.from('this is not a tar archive, just some text that is long enough '.repeat(10)), 'layer sha256:x of img')).rejects.toThrow(
      /^layer sha256:x of img is not a readable tar archive: /,
    );
    await expect(readLayerEntries(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0]), 'layer z')).rejects.toThrow(/zstd-compressed, which is not supported/);
  });

  it('refuses a manifest file over the per-file limit from its tar header, before reading its content', async () => {
    // only the header: the 10 MiB of content never arrive, so reading them would fail as a truncated archive instead
    const headerOnly = zeroFileLayer('manifests/big.yaml', 10 * 1024 * 1024, Buffer.alloc(0));
    const error = await readLayerEntries(headerOnly, 'layer sha256:x of img', new BundleImageBudget(defaultBundleImageLimits, 'img')).catch((caught: unknown) => caught);
    expect(hasErrorCode(error, BundleImageErrorCodes.limitExceeded)).toBe(true);
    expect((error as Error).message).toMatch(/^bundle image img is over its limit of 1048576 bytes in one file: file manifests\/big\.yaml of layer sha256:x of img is 10485760 bytes; .*--bundle-max-file-bytes\)$/);
  });

  it('counts every layer against one budget, also the same layer again', async () => {
    const layer = gzip(await tarLayer([{ name: 'manifests/a.yaml', content: 'x'.repeat(1000) }]));
    const limits = { ...defaultBundleImageLimits, maxManifestBytes: 2500 };
    const layers = [1, 2, 3].map(() => ({ digest: 'sha256:same', bytes: layer }));
    await expect(extractBundleFiles(layers.slice(0, 2), 'img', new BundleImageBudget(limits, 'img'))).resolves.toBeDefined();
    await expect(extractBundleFiles(layers, 'img', new BundleImageBudget(limits, 'img'))).rejects.toThrow(
      'bundle image img is over its limit of 2500 bytes of manifests/ and metadata/ files: file manifests/a.yaml of layer sha256:same (3 of 3) of img takes the files kept so far past it (3000 bytes)',
    );
  });

  it('never leaves the image root', () => {
    expect(normalizeTarPath('./a//b/./c')).toBe('a/b/c');
    expect(normalizeTarPath('../etc/passwd')).toBeUndefined();
    expect(normalizeTarPath('manifests/../../x')).toBeUndefined();
  });
});

describe('laying layers over each other', () => {
  const entry = (path: string, content = '', type = 'file', linkname?: string) => ({ path, type, data: Buffer.from(content), ...(linkname ? { linkname } : {}) });

  it('keeps only manifests/ and metadata/, later layers replacing earlier files', () => {
    const files = new Map<string, Buffer>();
    applyLayer(files, [entry('manifests/a.yaml', 'one'), entry('manifests/b.yaml', 'b'), entry('etc/passwd', 'x'), entry('metadata/annotations.yaml', 'm')]);
    applyLayer(files, [entry('manifests', '', 'directory'), entry('manifests/a.yaml', 'two')]);
    expect(text(files)).toEqual({ 'manifests/a.yaml': 'two', 'manifests/b.yaml': 'b', 'metadata/annotations.yaml': 'm' });
  });

  it('removes a whited-out file or directory of a lower layer', () => {
    const files = new Map<string, Buffer>();
    applyLayer(files, [entry('manifests/a.yaml', 'a'), entry('manifests/b.yaml', 'b'), entry('metadata/annotations.yaml', 'm'), entry('metadata/x/y.yaml', 'y')]);
    applyLayer(files, [entry('manifests/.wh.a.yaml'), entry('metadata/.wh.x')]);
    expect(text(files)).toEqual({ 'manifests/b.yaml': 'b', 'metadata/annotations.yaml': 'm' });
  });

  it('empties a directory with an opaque whiteout, keeping what the same layer adds', () => {
    const files = new Map<string, Buffer>();
    applyLayer(files, [entry('manifests/old.yaml', 'old'), entry('metadata/annotations.yaml', 'm')]);
    // whiteouts apply to lower layers only, whatever their order in the archive
    applyLayer(files, [entry('manifests/new.yaml', 'new'), entry('manifests/.wh..wh..opq')]);
    expect(text(files)).toEqual({ 'manifests/new.yaml': 'new', 'metadata/annotations.yaml': 'm' });
    applyLayer(files, [entry('.wh.manifests')]);
    expect(text(files)).toEqual({ 'metadata/annotations.yaml': 'm' });
  });

  it('follows hard links to files of the archive and ignores symlinks', () => {
    const files = new Map<string, Buffer>();
    applyLayer(files, [entry('manifests/a.yaml', 'a'), entry('manifests/b.yaml', '', 'link', 'manifests/a.yaml'), entry('manifests/c.yaml', '', 'symlink', 'a.yaml')]);
    expect(text(files)).toEqual({ 'manifests/a.yaml': 'a', 'manifests/b.yaml': 'a' });
  });

  it('extracts the bundle files of real layers, lowest first', async () => {
    const lower = gzip(await tarLayer([{ name: 'manifests/csv.yaml', content: csvYaml }, { name: 'manifests/stale.yaml', content: 'x' }]));
    const upper = await tarLayer([{ name: 'manifests/.wh.stale.yaml' }, { name: 'manifests/crd.json', content: crdJson }]);
    const files = await extractBundleFiles(
      [
        { digest: 'sha256:lower', bytes: lower },
        { digest: 'sha256:upper', bytes: upper },
      ],
      'img',
    );
    expect([...files.keys()].sort()).toEqual(['manifests/crd.json', 'manifests/csv.yaml']);
  });
});

describe('manifest files', () => {
  it('reads JSON and (multi-document) YAML, keeping unquoted timestamps as strings', () => {
    expect(parseManifestFile('crd.json', crdJson, 'img')).toEqual([JSON.parse(crdJson)]);
    const [csv] = parseManifestFile('csv.yaml', csvYaml, 'img');
    expect(csv).toMatchObject({ kind: 'ClusterServiceVersion', metadata: { annotations: { createdAt: '2024-01-02T03:04:05Z' } } });
    const two = parseManifestFile('two.yaml', `---\napiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n`, 'img');
    expect(two.map((object) => object.kind)).toEqual(['Service', 'ConfigMap']);
  });

  it('names the file and the image when a file is not a manifest', () => {
    expect(thrown(() => parseManifestFile('manifests/bad.yaml', 'a: [unclosed', 'quay.io/acme/b:1')).message).toMatch(
      /^manifest file manifests\/bad.yaml of bundle image quay.io\/acme\/b:1 is neither JSON nor YAML: /,
    );
    expect(thrown(() => parseManifestFile('manifests/list.yaml', '- 1\n- 2\n', 'img')).message).toContain('has a document (#1) that is not a Kubernetes object with apiVersion and kind');
  });

  it('refuses a manifest whose YAML aliases expand past the limits (billion laughs), naming file and document', () => {
    const levels = 'bcdefghi'.split('').map((name, index) => `  ${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[index]}`).join(', ')}]`);
    const laughs = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: a}', '---', 'apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: laughs}', 'data:', '  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]', ...levels].join('\n');
    expect(thrown(() => parseManifestFile('manifests/laughs.yaml', laughs, 'quay.io/acme/b:1')).message).toMatch(
      /^manifest file manifests\/laughs.yaml of bundle image quay.io\/acme\/b:1 has a document \(#2\) that contains excessive aliasing: .*maxExpandedBytes.*; fix the file and push the bundle image again$/,
    );
    const modest = parseManifestFile('manifests/ok.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok, labels: &l {app: x}, annotations: *l}\n', 'img');
    expect(modest[0]?.metadata).toEqual({ name: 'ok', labels: { app: 'x' }, annotations: { app: 'x' } });
  });
});

describe('the unpacked ConfigMap', () => {
  const files = new Map([
    ['manifests/thing.clusterserviceversion.yaml', Buffer.from(csvYaml)],
    ['manifests/things.crd.json', Buffer.from(crdJson)],
    ['metadata/annotations.yaml', Buffer.from('annotations:\n  operators.operatorframework.io.bundle.package.v1: thing\n  operators.operatorframework.io.bundle.channels.v1: stable\n')],
  ]);
  const image = '127.0.0.1:5000/acme/thing-bundle:v1';

  it('is named after a hash of the image, lives in the catalog namespace, owned by the catalog', () => {
    const configMap = unpackedConfigMap({ image, digest: 'sha256:abc', files, catalog: { name: 'acme', namespace: 'olm' }, catalogUid: 'uid-1' });
    expect(unpackedConfigMapName(image)).toMatch(/^[0-9a-f]{63}$/);
    expect(configMap.metadata).toMatchObject({
      name: unpackedConfigMapName(image),
      namespace: 'olm',
      labels: { 'olm.managed': 'true', 'olm.catalogSource': 'acme' },
      annotations: {
        [bundleImageAnnotation]: image,
        [bundleDigestAnnotation]: 'sha256:abc',
        'operators.operatorframework.io.bundle.package.v1': 'thing',
        'operators.operatorframework.io.bundle.channels.v1': 'stable',
      },
      ownerReferences: [{ kind: 'CatalogSource', name: 'acme', uid: 'uid-1', controller: false, blockOwnerDeletion: false }],
    });
    expect(Object.keys(configMap.data)).toEqual(['thing.clusterserviceversion.yaml', 'things.crd.json']);
    // read back: the same manifests
    expect(manifestsFromConfigMap(configMap).map((manifest) => manifest.kind)).toEqual(['ClusterServiceVersion', 'CustomResourceDefinition']);
  });

  it('needs a ClusterServiceVersion', () => {
    const error = thrown(() => unpackedConfigMap({ image, digest: 'd', files: new Map([['manifests/crd.json', Buffer.from(crdJson)]]), catalog: { name: 'acme', namespace: 'olm' } }));
    expect(hasErrorCode(error, BundleUnpackErrorCodes.noCsv)).toBe(true);
    expect(error.message).toContain(`bundle image ${image} has no ClusterServiceVersion in manifests/ (found manifests/crd.json)`);
  });

  it('refuses manifests larger than a ConfigMap holds, saying how to fix it', () => {
    const big = new Map(files);
    big.set('manifests/huge.yaml', Buffer.from(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: huge}\ndata:\n  blob: "${'x'.repeat(configMapMaxBytes)}"\n`));
    const error = thrown(() => unpackedConfigMap({ image, digest: 'd', files: big, catalog: { name: 'acme', namespace: 'olm' } }));
    expect(hasErrorCode(error, BundleUnpackErrorCodes.tooLarge)).toBe(true);
    expect(error.message).toMatch(/^the manifests of bundle image 127\.0\.0\.1:5000\/acme\/thing-bundle:v1 take \d+ bytes, more than the 1048576 bytes a ConfigMap can hold; shrink the bundle/);
  });
});

import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expandingBundleDocument, expandingCatalogFile, expandingPackageDocument } from '../src/testing/index.js';
import { hasErrorCode } from '@olm/core';
import { defaultCatalogLimits, loadCatalog, loadDeclarativeConfig, validateCatalog } from '../src/index.js';
import { catalogFromConfigMapData, CatalogSourceErrorCodes, createCatalogSourceTypes } from '../src/sources/index.js';

/**
 * Limits that hold in aggregate: many documents each under the per-document alias limit, many
 * files each under the per-file limit, very many tiny documents, and a file too large to read.
 */
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'olm-limits-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const MiB = 1024 * 1024;


describe('catalog limits hold in aggregate', () => {
  it('twenty documents of ~30 MB each in one file: refused at the document that crosses maxFileDecodedBytes', async () => {
    await writeFile(join(root, 'catalog.yaml'), expandingCatalogFile(20));
    const config = await loadDeclarativeConfig(root);
    expect(config.errors).toHaveLength(1);
    const [problem] = config.errors;
    // 128 MiB / 30 MB: the fifth bundle (the sixth document) crosses the limit.
    expect(problem).toMatchObject({ file: 'catalog.yaml', code: 'OLM_REGISTRY_LOAD' });
    expect(problem?.message).toMatch(
      /^with document 6 \(line \d+\) the file decodes to \d+ bytes, over the limit of 134217728 \(maxFileDecodedBytes; raise it with --max-file-decoded-bytes\)$/,
    );
    expect(problem?.line).toBe(Number(/line (\d+)/.exec(problem?.message ?? '')?.[1]));
    expect(problem?.hint).toMatch(/limits\.maxFileDecodedBytes/);
    // Documents after the refused one are not kept.
    expect(config.bundles.length).toBeLessThan(6);

    await expect(loadCatalog(root)).rejects.toSatisfy((error) => hasErrorCode(error, 'OLM_REGISTRY_LOAD') && /maxFileDecodedBytes/.test(String(error)));
    const report = await validateCatalog(root);
    expect(report.valid).toBe(false);
    expect(report.text).toMatch(/catalog\.yaml:\d+: with document 6/);
  });

  it('the same documents spread over twenty files: refused at the file that crosses maxCatalogDecodedBytes, and no later file is read', async () => {
    await writeFile(join(root, 'a-package.yaml'), expandingPackageDocument);
    for (let index = 0; index < 20; index += 1) await writeFile(join(root, `b-${String(index).padStart(2, '0')}.yaml`), expandingBundleDocument(index));
    const config = await loadDeclarativeConfig(root);
    expect(config.errors).toHaveLength(1);
    // 256 MiB / 30 MB: the ninth bundle file crosses it.
    expect(config.errors[0]).toMatchObject({ file: 'b-08.yaml', line: 1 });
    expect(config.errors[0]?.message).toMatch(/^with document 1 \(line 1\) the catalog decodes to \d+ bytes, over the limit of 268435456 \(maxCatalogDecodedBytes; raise it with --max-catalog-decoded-bytes\)$/);
    expect(config.bundles.map((bundle) => bundle.position.file)).not.toContain('b-09.yaml');
  });

  it('raised limits load what the defaults refuse', async () => {
    await writeFile(join(root, 'catalog.yaml'), expandingCatalogFile(6));
    expect((await loadDeclarativeConfig(root)).errors).toHaveLength(1);
    const config = await loadDeclarativeConfig(root, { limits: { maxFileDecodedBytes: 512 * MiB } });
    expect(config.errors).toEqual([]);
    expect(config.bundles).toHaveLength(6);
  });

  it('very many tiny documents: refused past maxCatalogDocuments, in one file or over many', async () => {
    const documents = (count: number, from = 0) => Array.from({ length: count }, (_, index) => `{"schema":"my.thing","name":"t${from + index}"}`).join('\n');
    await writeFile(join(root, 'many.json'), documents(defaultCatalogLimits.maxCatalogDocuments + 1));
    const one = await loadDeclarativeConfig(root);
    expect(one.errors).toMatchObject([{ file: 'many.json', line: defaultCatalogLimits.maxCatalogDocuments + 1 }]);
    expect(one.errors[0]?.message).toMatch(/^document 100001 \(line 100001\) is document number 100001 of the catalog, over the limit of 100000 \(maxCatalogDocuments; raise it with --max-catalog-documents\)$/);
    await rm(join(root, 'many.json'));

    for (let file = 0; file < 50; file += 1) await writeFile(join(root, `f${String(file).padStart(2, '0')}.json`), documents(2_100, file * 2_100));
    const spread = await loadDeclarativeConfig(root);
    // 47 files hold 98,700 documents: the 1,301st of the 48th file (f47) crosses the limit; f48 and f49 are not read.
    expect(spread.errors).toMatchObject([{ file: 'f47.json', line: 1_301 }]);
    expect(spread.others).toHaveLength(defaultCatalogLimits.maxCatalogDocuments);
  });

  it('a file over maxFileBytes is refused from its size, before it is read (a sparse 64 GiB file)', async () => {
    const handle = await open(join(root, 'huge.json'), 'w');
    await handle.truncate(64 * 1024 * MiB);
    await handle.close();
    await writeFile(join(root, 'small.json'), '{"schema":"olm.package","name":"small","defaultChannel":"stable"}');
    const config = await loadDeclarativeConfig(root);
    expect(config.errors).toEqual([
      expect.objectContaining({
        file: 'huge.json',
        message: 'read huge.json: the file is 68719476736 bytes, over the limit of 67108864 (maxFileBytes; raise it with --max-file-bytes)',
      }),
    ]);
    expect(config.packages.map((pkg) => pkg.name)).toEqual(['small']);
  });

  it('decoded olm.bundle.object manifests count too', async () => {
    const manifest = Buffer.from(JSON.stringify({ kind: 'ConfigMap', data: { blob: 'y'.repeat(100_000) } })).toString('base64');
    const bundle = (index: number) =>
      JSON.stringify({
        schema: 'olm.bundle',
        package: 'p',
        name: `p.v${index}`,
        properties: [{ type: 'olm.package', value: { packageName: 'p', version: `1.0.${index}` } }, ...Array(10).fill({ type: 'olm.bundle.object', value: { data: manifest } })],
      });
    await writeFile(join(root, 'bundles.json'), [0, 1, 2].map(bundle).join('\n'));
    // The documents take 4 MB (base64); their manifests decode to 1 MB more per bundle.
    const limits = { maxFileDecodedBytes: 5 * MiB };
    const config = await loadDeclarativeConfig(root, { limits });
    expect(config.errors).toHaveLength(1);
    expect(config.errors[0]?.message).toMatch(/^with the olm\.bundle\.object at property index \d+ of bundle "p\.v1" the file decodes to \d+ bytes, over the limit of 5242880 \(maxFileDecodedBytes/);
  });
});

describe('ConfigMap catalogs share the bound', () => {
  it('a CRD owned by many CSVs is charged once per CSV that carries it', async () => {
    const crd = `- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata: {name: things.example.com}\n  spec: {group: example.com, names: {kind: Thing, plural: things}, versions: [{name: v1}], pad: "${'z'.repeat(200_000)}"}\n`;
    const csvs = Array.from(
      { length: 50 },
      (_, index) =>
        `- metadata: {name: thing.v${index}}\n  spec: {version: 1.0.${index}, ${index > 0 ? `replaces: thing.v${index - 1}, ` : ''}customresourcedefinitions: {owned: [{name: things.example.com, kind: Thing, version: v1}]}}\n`,
    ).join('');
    const data = { customResourceDefinitions: crd, clusterServiceVersions: csvs, packages: '- packageName: thing\n  channels: [{name: stable, currentCSV: thing.v49}]\n' };
    expect(() => catalogFromConfigMapData(data, 'ConfigMap olm/things', { limits: { maxFileDecodedBytes: 5 * MiB } })).toThrow(
      expect.objectContaining({
        code: CatalogSourceErrorCodes.configMapInvalid,
        message: expect.stringMatching(/^ConfigMap olm\/things: with the manifests of CSV "thing\.v\d+" the file decodes to \d+ bytes, over the limit of 5242880 \(maxFileDecodedBytes; raise it with --max-file-decoded-bytes\)$/),
      }),
    );
    expect(catalogFromConfigMapData(data, 'ConfigMap olm/things').packages.get('thing')?.bundles.size).toBe(50);

    // The same bound through the configmap source type, as the catalog operator and the packageserver read it.
    const configMapType = createCatalogSourceTypes({ fetchConfigMap: async () => data, limits: { maxFileDecodedBytes: 5 * MiB } }).find((type) => type.sourceType === 'configmap');
    const connection = await configMapType!.open({ namespace: 'olm', name: 'things', spec: { sourceType: 'configmap', configMap: 'things' } });
    await expect(connection.load()).rejects.toThrow(/^ConfigMap olm\/things: with the manifests of CSV "thing\.v\d+" the file decodes to \d+ bytes, over the limit of 5242880 \(maxFileDecodedBytes/);
    expect(connection.state()).toBe('TRANSIENT_FAILURE');
  });
});

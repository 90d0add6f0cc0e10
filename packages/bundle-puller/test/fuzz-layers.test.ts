import { hasErrorCode } from '@olm/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BundleImageBudget, extractBundleFiles, unpackedConfigMap, type BundleImageLimits } from '../src/index.js';
import { gzip, tarLayer, thingCsvYaml, type LayerEntry } from './oci-images.js';

/**
 * Generated bundle images of many layers (fast-check): entries in and out of `manifests/` and
 * `metadata/`, whiteouts, links, directories, files of any size, layers gzip-compressed, plain,
 * truncated or not tar at all, and layers repeated. Unpacking each either gives files within every
 * limit, or fails with a coded error naming the image: never a TypeError, RangeError or hang.
 */
const limits: BundleImageLimits = { maxLayers: 40, maxCompressedBytes: 4 * 1024 * 1024, maxUncompressedBytes: 256 * 1024, maxFileBytes: 8 * 1024, maxManifestBytes: 32 * 1024, maxFiles: 60 };
const image = 'registry.test/fuzz/bundle:v1';

const directory = fc.constantFrom('manifests', 'metadata', 'manifests/sub', 'etc', '', 'manifests/..', '.');
const base = fc.oneof(fc.constantFrom('csv.yaml', 'crd.json', 'annotations.yaml', '.wh..wh..opq', '.wh.csv.yaml', '.wh.manifests', 'manifests'), fc.string({ minLength: 1, maxLength: 12 }));
const content = fc.oneof(
  fc.constant(thingCsvYaml),
  fc.string({ maxLength: 200 }),
  fc.nat({ max: 20_000 }).map((size) => 'a'.repeat(size)),
  fc.constant('a: &a [x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n'),
);
const entry: fc.Arbitrary<LayerEntry> = fc
  .record({ directory, base, type: fc.constantFrom('file', 'file', 'file', 'directory', 'link', 'symlink'), content, linkname: fc.constantFrom('manifests/csv.yaml', '../../etc/passwd', 'nowhere') })
  .map(({ directory: dir, base: name, type, content: text, linkname }) => {
    const path = dir ? `${dir}/${name}` : name;
    if (type === 'file') return { name: path, content: text };
    if (type === 'directory') return { name: `${path}/`, type };
    return { name: path, type, linkname };
  });
const layer = fc.record({
  entries: fc.array(entry, { maxLength: 12 }),
  form: fc.constantFrom('gzip', 'plain', 'truncated', 'garbage'),
  repeat: fc.nat({ max: 3 }),
});

async function bytesOf(spec: { entries: LayerEntry[]; form: string }): Promise<Buffer> {
  const tar = await tarLayer(spec.entries);
  if (spec.form === 'gzip') return gzip(tar);
  if (spec.form === 'truncated') return gzip(tar).subarray(0, Math.max(1, Math.floor(tar.length / 3)));
  if (spec.form === 'garbage') return Buffer.from(`not a tar archive ${spec.entries.length} `.repeat(40));
  return tar;
}

describe('generated bundle images of many layers', () => {
  it('unpack within every limit or fail with a coded error naming the image', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(layer, { minLength: 1, maxLength: 12 }), async (specs) => {
        const layers = [];
        for (const [index, spec] of specs.entries()) {
          const bytes = await bytesOf(spec);
          // a repeated layer names the same blob again: it counts each time
          for (let copy = 0; copy <= spec.repeat; copy++) layers.push({ digest: `sha256:layer${index}`, bytes });
        }
        const budget = new BundleImageBudget(limits, image);
        try {
          const files = await extractBundleFiles(layers, image, budget);
          expect(files.size).toBeLessThanOrEqual(limits.maxFiles);
          for (const [path, data] of files) {
            expect(path.startsWith('manifests/') || path.startsWith('metadata/')).toBe(true);
            expect(data.length).toBeLessThanOrEqual(limits.maxFileBytes);
          }
          // a hard link shares its target's buffer: the distinct buffers are what was read, and counted
          const read = [...new Set(files.values())].reduce((sum, data) => sum + data.length, 0);
          expect(read).toBeLessThanOrEqual(limits.maxManifestBytes);
          unpackedConfigMap({ image, digest: 'sha256:x', files, catalog: { namespace: 'olm', name: 'fuzz' } });
        } catch (error) {
          if (!hasErrorCode(error) || !/^OLM_BUNDLE_(IMAGE|UNPACK)_/.test(error.code)) throw error;
          expect((error as Error).message).toContain(image);
        }
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});

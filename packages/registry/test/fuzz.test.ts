import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasErrorCode } from '@olm/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { DeclarativeConfig } from '../src/index.js';
import { buildCatalog, catalogLimitFlags, loadDeclarativeConfig, renderCatalog, validateCatalog } from '../src/index.js';

/**
 * Generated catalogs (fast-check): blobs shaped like FBC whose every field may be any JSON value,
 * written as a JSON stream or as YAML, and arbitrary text. Loading, building, validating and
 * rendering each either succeeds or fails with a coded error or a validation report whose every
 * problem says how to fix it: never a TypeError, RangeError or hang.
 */
const anyJson = fc.jsonValue({ maxDepth: 3 });
const name = fc.oneof(fc.constantFrom('a', 'b', 'a.v1.0.0', 'a.v2.0.0', 'b.v1.0.0', ''), fc.string({ maxLength: 12 }));
const orAnything = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary }, { weight: 1, arbitrary: anyJson });
const property = fc.record(
  {
    type: orAnything(fc.constantFrom('olm.package', 'olm.gvk', 'olm.package.required', 'olm.gvk.required', 'olm.constraint', 'olm.bundle.object', 'olm.csv.metadata', 'olm.deprecated', 'x.custom')),
    value: fc.oneof(
      fc.record({ packageName: orAnything(name), version: orAnything(fc.constantFrom('1.0.0', '2.0.0', 'v1', '')), versionRange: orAnything(fc.constantFrom('>=1.0.0', '<2.0.0 || >3', 'junk')) }, { requiredKeys: [] }),
      fc.record({ group: orAnything(fc.constantFrom('example.com', '')), version: orAnything(fc.constantFrom('v1', '')), kind: orAnything(fc.constantFrom('Thing', '')) }, { requiredKeys: [] }),
      fc.record({ failureMessage: fc.string(), cel: fc.record({ rule: orAnything(fc.constantFrom('true', 'properties.exists(p, p.type == "olm.gvk")', '1 +', '"a".matches("(a+)+$")')) }), all: anyJson, any: anyJson, not: anyJson }, { requiredKeys: [] }),
      fc.record({ data: orAnything(fc.base64String({ maxLength: 40 })) }, { requiredKeys: [] }),
      anyJson,
    ),
  },
  { requiredKeys: [] },
);
const entry = fc.record({ name: orAnything(name), replaces: orAnything(name), skips: orAnything(fc.array(name, { maxLength: 3 })), skipRange: orAnything(fc.constantFrom('>=1.0.0 <2.0.0', '<1.0.0', 'bad range')) }, { requiredKeys: ['name'] });
const blob = fc.oneof(
  fc.record({ schema: fc.constant('olm.package'), name: orAnything(name), defaultChannel: orAnything(fc.constantFrom('stable', 'fast', '')), description: fc.string() }, { requiredKeys: ['schema'] }),
  fc.record({ schema: fc.constant('olm.channel'), name: orAnything(fc.constantFrom('stable', 'fast')), package: orAnything(name), entries: orAnything(fc.array(entry, { maxLength: 4 })) }, { requiredKeys: ['schema'] }),
  fc.record(
    { schema: fc.constant('olm.bundle'), name: orAnything(name), package: orAnything(name), image: orAnything(fc.constantFrom('quay.io/a/b:v1', 'quay.io/a/b@sha256:' + 'a'.repeat(64), 'bad image', '')), properties: orAnything(fc.array(property, { maxLength: 5 })) },
    { requiredKeys: ['schema'] },
  ),
  fc.record({ schema: fc.constant('olm.deprecations'), package: orAnything(name), entries: anyJson }, { requiredKeys: ['schema'] }),
  fc.record({ schema: fc.string({ maxLength: 10 }) }),
  anyJson,
);
const catalogFile = fc.oneof(
  fc.array(blob, { maxLength: 8 }).map((blobs) => ({ file: 'catalog.json', text: blobs.map((value) => JSON.stringify(value)).join('\n') })),
  fc.array(blob, { maxLength: 8 }).map((blobs) => ({ file: 'catalog.yaml', text: blobs.map((value) => stringify(value)).join('---\n') })),
  fc.string({ maxLength: 400 }).map((text) => ({ file: 'catalog.yaml', text })),
  fc.string({ maxLength: 400 }).map((text) => ({ file: 'catalog.json', text })),
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'olm-fuzz-catalog-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A failure that explains itself: an OLM error code and a message (never a bare TypeError). */
function expectClearError(error: unknown): void {
  expect(hasErrorCode(error), `not a coded error: ${(error as Error)?.stack ?? String(error)}`).toBe(true);
  expect((error as Error).message.length).toBeGreaterThan(0);
}

describe('generated catalogs', () => {
  it('load, build, validate and render, or fail with a clear error', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(catalogFile, async ({ file, text }) => {
        const catalogDir = join(dir, `run-${(run += 1)}`);
        await rm(catalogDir, { recursive: true, force: true });
        await import('node:fs/promises').then((fs) => fs.mkdir(catalogDir));
        await writeFile(join(catalogDir, file), text);
        try {
          const config = await loadDeclarativeConfig(catalogDir);
          buildCatalog(config);
          renderCatalog(config, 'json');
          renderCatalog(config, 'yaml');
        } catch (error) {
          expectClearError(error);
        }
        const report = await validateCatalog(catalogDir);
        for (const problem of report.errors) expect(problem.hint.length, JSON.stringify(problem)).toBeGreaterThan(0);
        await rm(catalogDir, { recursive: true, force: true });
      }),
      { numRuns: 300, seed: 20_261_127 },
    );
  }, 120_000);
});

/** A blob that reuses one value several times: the YAML writer turns the reuse into an anchor and aliases. */
const aliasingBlob = fc.tuple(blob, fc.dictionary(fc.string({ maxLength: 4 }), anyJson, { minKeys: 1, maxKeys: 4 })).map(([value, shared]) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value, x: shared, y: [shared, shared] } : value,
);
const manyDocumentsFile = fc.record({
  yaml: fc.boolean(),
  blobs: fc.array(fc.oneof({ weight: 3, arbitrary: blob }, { weight: 1, arbitrary: aliasingBlob }), { maxLength: 60 }),
});
const catalogLimits = fc.record({
  maxFileBytes: fc.integer({ min: 50, max: 40_000 }),
  maxFileDecodedBytes: fc.integer({ min: 50, max: 40_000 }),
  maxCatalogDecodedBytes: fc.integer({ min: 100, max: 120_000 }),
  maxCatalogDocuments: fc.integer({ min: 1, max: 400 }),
});

/** Each loaded blob as `file#index`, in load order. */
function positions(config: DeclarativeConfig): string[] {
  const blobs = [...config.packages, ...config.channels, ...config.bundles, ...config.deprecations, ...config.others];
  return blobs.map((item) => item.position).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.index ?? 0) - (b.index ?? 0))).map((at) => `${at.file}#${at.index ?? 0}`);
}

describe('generated catalogs of many documents and files, under random limits', () => {
  it('keep, per file, a prefix of what an unlimited load keeps, and name the limit and its flag when they stop', async () => {
    const unlimited = { maxFileBytes: Infinity, maxFileDecodedBytes: Infinity, maxCatalogDecodedBytes: Infinity, maxCatalogDocuments: Infinity };
    let run = 0;
    const limitsHit = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(manyDocumentsFile, { minLength: 1, maxLength: 12 }), catalogLimits, async (files, limits) => {
        const catalogDir = join(dir, `many-${(run += 1)}`);
        await import('node:fs/promises').then((fs) => fs.mkdir(catalogDir, { recursive: true }));
        for (const [index, { yaml, blobs }] of files.entries()) {
          const text = yaml ? blobs.map((value) => stringify(value)).join('---\n') : blobs.map((value) => JSON.stringify(value)).join('\n');
          await writeFile(join(catalogDir, `f${String(index).padStart(2, '0')}.${yaml ? 'yaml' : 'json'}`), text);
        }
        const all = await loadDeclarativeConfig(catalogDir, { limits: unlimited });
        const limited = await loadDeclarativeConfig(catalogDir, { limits });
        const limitProblems = limited.errors.filter((problem) => / \((max\w+); raise it with (--[\w-]+)\)$/.test(problem.message));
        for (const problem of limitProblems) {
          const [, key, flag] = / \((max\w+); raise it with (--[\w-]+)\)$/.exec(problem.message) ?? [];
          expect(catalogLimitFlags[key as keyof typeof catalogLimitFlags]).toBe(flag);
          limitsHit.add(key as string);
          expect(problem.hint).toContain(`limits.${key}`);
        }
        const kept = positions(limited);
        const everything = positions(all);
        expect(kept.length).toBeLessThanOrEqual(limits.maxCatalogDocuments);
        for (const file of new Set(everything.map((at) => at.split('#')[0]))) {
          const inFile = (list: string[]) => list.filter((at) => at.startsWith(`${file}#`));
          expect(inFile(everything).slice(0, inFile(kept).length)).toEqual(inFile(kept));
        }
        if (limitProblems.length === 0) expect(kept).toEqual(everything);
        await rm(catalogDir, { recursive: true, force: true });
      }),
      { numRuns: 120, seed: 20_261_129 },
    );
    // The generated cases reach every limit (else this test would prove little).
    expect([...limitsHit].sort()).toEqual(Object.keys(catalogLimitFlags).sort());
  }, 120_000);
});

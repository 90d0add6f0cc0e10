import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasErrorCode, type CatalogContent, type Property } from '@olm/core';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { loadCatalog } from '@olm/registry';
import { afterAll, describe, expect, it } from 'vitest';
import { builtInConstraintEvaluators, createResolver, ResolverErrorCodes, type ResolveInput } from '../src/index.js';
import { bundle, catalog, pkg } from './catalog-builder.js';

// 131072 bytes (upstream's size limit) hold about 5,000 nested `all`s: enough to overflow the stack
// of anything that walks the value recursively. Such a constraint fails its namespace's resolution
// with a message naming the bundle, never with a RangeError.

/** `levels` nested compounds (all, any, not in turn, so every kind is walked) around a package constraint on db. */
function nested(levels: number): Record<string, unknown> {
  let constraint: Record<string, unknown> = { package: { packageName: 'db', versionRange: '>=1.0.0' } };
  const kinds = ['all', 'any', 'not'];
  // An even number of `not`s keeps the meaning: db at >=1.0.0.
  for (let level = 0; level < levels; level++) constraint = { [kinds[level % 2]!]: { constraints: [constraint] } };
  return constraint;
}

function content(value: unknown): CatalogContent {
  const property: Property = { type: 'olm.constraint', value };
  return catalog(
    pkg('app', 'stable', { stable: [{ name: 'app.v1' }] }, [bundle('app.v1', 'app', '1.0.0', { properties: [property] })]),
    pkg('db', 'stable', { stable: [{ name: 'db.v1' }] }, [bundle('db.v1', 'db', '1.0.0')]),
  );
}

const subscribe = (catalogContent: CatalogContent): ResolveInput => ({
  namespace: 'team-a',
  catalogs: [{ name: 'community', namespace: 'olm', content: catalogContent }],
  subscriptions: [{ name: 'app', package: 'app', channel: 'stable', source: 'community', sourceNamespace: 'olm' }],
});

const resolver = createResolver({
  satBackend: createLogicSolverBackend(),
  constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()],
});

function failure(input: ResolveInput): Error {
  try {
    resolver.resolve(input);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the resolution to fail');
}

const directory = mkdtempSync(join(tmpdir(), 'olm-deep-constraint-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('compound constraints nested thousands deep', () => {
  const deep = nested(5_000);
  const expectedMessage = /^bundle app\.v1 \(catalogsource olm\/community\): parse olm\.constraint: the value nests more than 200 levels deep \(each all, any or not adds 3\); flatten the constraint$/;

  it('fails the resolution naming the bundle, without a RangeError', () => {
    expect(Buffer.byteLength(JSON.stringify(nested(1_000)))).toBeLessThan(131_072 / 4);
    const error = failure(subscribe(content(deep)));
    expect(error).not.toBeInstanceOf(RangeError);
    expect(hasErrorCode(error, ResolverErrorCodes.invalidInput)).toBe(true);
    expect(error.message).toMatch(expectedMessage);
  });

  it('does the same when the value arrives as JSON text (the registry gRPC API)', () => {
    let text = '{"package":{"packageName":"db","versionRange":">=1.0.0"}}';
    for (let level = 0; level < 5_000; level++) text = `{"all":{"constraints":[${text}]}}`;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(131_072);
    expect(failure(subscribe(content(text))).message).toMatch(expectedMessage);
  });

  it('does the same for a file-based catalog loaded from disk (deeper ones are refused by the loader)', async () => {
    const write = (levels: number) => {
      // Written by hand: JSON.stringify itself overflows the stack on 5,000 levels.
      let deepText = '{"package":{"packageName":"db","versionRange":">=1.0.0"}}';
      for (let level = 0; level < levels; level++) deepText = `{"all":{"constraints":[${deepText}]}}`;
      const blobs = [
        { schema: 'olm.package', name: 'app', defaultChannel: 'stable' },
        { schema: 'olm.channel', package: 'app', name: 'stable', entries: [{ name: 'app.v1' }] },
        {
          schema: 'olm.bundle',
          name: 'app.v1',
          package: 'app',
          image: 'example.com/app:v1',
          properties: [
            { type: 'olm.package', value: { packageName: 'app', version: '1.0.0' } },
            { type: 'olm.constraint', value: 'DEEP' },
          ],
        },
      ];
      writeFileSync(join(directory, 'catalog.json'), blobs.map((blob) => JSON.stringify(blob).replace('"DEEP"', deepText)).join('\n'));
    };
    write(300);
    expect(failure(subscribe(await loadCatalog(directory))).message).toMatch(expectedMessage);
    write(5_000);
    await expect(loadCatalog(directory)).rejects.toThrow(/catalog\.json:3: json: exceeded max depth of 1000 nested values/);
  });

  it('resolves a constraint nested 60 compounds deep, within the limit', () => {
    const resolution = resolver.resolve(subscribe(content(nested(60))));
    expect(resolution.operators.map((operator) => operator.name)).toEqual(['app.v1', 'db.v1']);
  });
});

import { describe, expect, it } from 'vitest';
import { buildCatalog } from './build-catalog.js';
import { upgradePath } from './graph.js';
import { generateSyntheticCatalog, generateSyntheticConfig } from './synthetic-catalog.js';

describe('generateSyntheticCatalog', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = generateSyntheticConfig({ seed: 1, packages: 5, versionsPerPackage: 12 });
    const b = generateSyntheticConfig({ seed: 1, packages: 5, versionsPerPackage: 12 });
    const c = generateSyntheticConfig({ seed: 2, packages: 5, versionsPerPackage: 12 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(c));
  });

  it('has N × M bundles, validates clean, and its stable channels lead to the head', () => {
    const config = generateSyntheticConfig({ seed: 42, packages: 20, versionsPerPackage: 60 });
    const result = buildCatalog(config);
    expect(result.errors).toEqual([]);
    const catalog = result.catalog;
    expect(catalog.packages.size).toBe(20);
    expect([...catalog.bundles()]).toHaveLength(1200);
    const first = catalog.package('synthetic-operator-00003');
    expect(first?.channels.size).toBe(3);
    const path = upgradePath(first as NonNullable<typeof first>, 'stable', { name: 'synthetic-operator-00003.v1.0.0', version: '1.0.0' });
    expect(path[path.length - 1]?.to).toBe('synthetic-operator-00003.v2.0.9');
    // Dependencies only point at lower-numbered packages.
    for (const bundle of catalog.bundles()) {
      for (const required of catalog.properties<{ packageName: string }>(bundle, 'olm.package.required')) {
        expect(required.packageName < bundle.package).toBe(true);
      }
    }
    expect(generateSyntheticCatalog({ seed: 42, packages: 2, versionsPerPackage: 3 }).packages.size).toBe(2);
  });
});

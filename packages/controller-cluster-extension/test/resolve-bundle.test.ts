import { fileURLToPath } from 'node:url';
import { loadCatalog, type Catalog } from '@olm/registry';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveBundle, type CatalogCandidate, type ResolveInput } from '../src/resolve-bundle.js';

// The example catalog's acme-database: stable 1.0.0 <- 1.1.0 <- 1.1.1 (replaces 1.1.0), 1.2.0 (replaces
// 1.1.0, skips 1.1.1); fast 1.2.0 <- 2.0.0 (skipRange >=1.0.0 <2.0.0); 1.1.1 is deprecated.
const exampleCatalogDirectory = fileURLToPath(new URL('../../../examples/catalog/', import.meta.url));

describe('resolveBundle over the example catalog', () => {
  let catalog: Catalog;
  const resolve = (input: Partial<ResolveInput>, catalogs?: CatalogCandidate[]) =>
    resolveBundle(catalogs ?? [{ name: 'acme-examples', priority: 0, catalog }], { packageName: 'acme-database', ...input });
  const failure = (input: Partial<ResolveInput>, catalogs?: CatalogCandidate[]) => {
    try {
      resolve(input, catalogs);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected resolution to fail');
  };

  beforeAll(async () => {
    catalog = await loadCatalog(exampleCatalogDirectory);
  });

  it('picks the highest version of the package across channels, or in the range and channels asked for', () => {
    expect(resolve({}).bundle.name).toBe('acme-database.v2.0.0');
    expect(resolve({ versionRange: '1.0.x' }).bundle.name).toBe('acme-database.v1.0.0');
    expect(resolve({ channels: ['stable'] }).bundle.name).toBe('acme-database.v1.2.0');
    expect(resolve({ versionRange: '~1.0' }).catalogName).toBe('acme-examples');
  });

  it('prefers a non-deprecated bundle to a higher deprecated one, as upstream (1.1.x gives 1.1.0: 1.1.1 is deprecated)', () => {
    expect(resolve({ versionRange: '1.1.x' }).bundle.name).toBe('acme-database.v1.1.0');
    expect(resolve({ versionRange: '>=1.1.0 <1.2.0' }).bundle.name).toBe('acme-database.v1.1.0');
    expect(resolve({ versionRange: '1.1.1' }).bundle.name).toBe('acme-database.v1.1.1');
  });

  it('says when no bundle matches the range or channels, in upstream\'s words', () => {
    expect(failure({ versionRange: '3.x' })).toBe('no bundles found for package "acme-database" matching version "3.x"');
    expect(failure({ versionRange: '2.0.0', channels: ['stable'] })).toBe('no bundles found for package "acme-database" matching version "2.0.0" in channels [stable]');
    expect(failure({ channels: ['beta', 'stable'], versionRange: '>5' })).toBe('no bundles found for package "acme-database" matching version ">5" in channels [beta stable]');
    expect(failure({ versionRange: '<1.2.0', channels: ['fast'] })).toBe('no bundles found for package "acme-database" matching version "<1.2.0" in channels [fast]');
    expect(() => resolveBundle([{ name: 'acme-examples', priority: 0, catalog }], { packageName: 'missing' })).toThrow(/^no bundles found for package "missing"$/);
  });

  it('refuses an invalid range as upstream, terminally', () => {
    expect(failure({ versionRange: '1.2.3.4' })).toBe('desired version range "1.2.3.4" is invalid: improper constraint: 1.2.3.4');
  });

  it('CatalogProvided: only successors along replaces, skips and skipRange, or the installed version itself', () => {
    const installed = { name: 'acme-database.v1.1.1', version: '1.1.1' };
    // 1.2.0 skips 1.1.1; 2.0.0's skipRange covers it
    expect(resolve({ installed }).bundle.name).toBe('acme-database.v2.0.0');
    expect(resolve({ installed, versionRange: '1.2.0' }).bundle.name).toBe('acme-database.v1.2.0');
    expect(resolve({ installed, versionRange: '1.1.x' }).bundle.name).toBe('acme-database.v1.1.1');
    expect(failure({ installed, versionRange: '1.1.0' })).toBe('error upgrading from currently installed version "1.1.1": no bundles found for package "acme-database" matching version "1.1.0"');
    // 1.0.0 -> 1.1.1: 1.1.1 replaces 1.1.0, not 1.0.0
    expect(failure({ installed: { name: 'acme-database.v1.0.0', version: '1.0.0' }, versionRange: '1.1.1' })).toBe(
      'error upgrading from currently installed version "1.0.0": no bundles found for package "acme-database" matching version "1.1.1"',
    );
    expect(resolve({ installed: { name: 'acme-database.v1.0.0', version: '1.0.0' }, versionRange: '1.1.x' }).bundle.name).toBe('acme-database.v1.1.0');
    // edges of the asked channels only: in stable nothing upgrades 1.2.0
    expect(resolve({ installed: { name: 'acme-database.v1.2.0', version: '1.2.0' }, channels: ['stable'] }).bundle.name).toBe('acme-database.v1.2.0');
    expect(resolve({ installed: { name: 'acme-database.v1.2.0', version: '1.2.0' } }).bundle.name).toBe('acme-database.v2.0.0');
  });

  it('SelfCertified: any version, up, down or sideways', () => {
    const installed = { name: 'acme-database.v1.1.1', version: '1.1.1' };
    expect(resolve({ installed, versionRange: '1.1.0', policy: 'SelfCertified' }).bundle.name).toBe('acme-database.v1.1.0');
    expect(resolve({ installed: { name: 'acme-database.v1.0.0', version: '1.0.0' }, versionRange: '1.1.1', policy: 'SelfCertified' }).bundle.name).toBe('acme-database.v1.1.1');
  });

  it('breaks ties between catalogs by priority and refuses two at the same priority', () => {
    const two = (a: number, b: number): CatalogCandidate[] => [
      { name: 'zeta', priority: a, catalog },
      { name: 'alpha', priority: b, catalog },
    ];
    expect(resolve({}, two(5, 0)).catalogName).toBe('zeta');
    expect(resolve({}, two(-1, 0)).catalogName).toBe('alpha');
    expect(failure({ versionRange: '1.2.0' }, two(0, 0))).toBe('found bundles for package "acme-database" matching version "1.2.0" in multiple catalogs with the same priority [alpha zeta]');
  });
});

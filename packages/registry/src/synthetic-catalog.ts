import { buildCatalog } from './build-catalog.js';
import type { Catalog } from './catalog.js';
import type { DeclarativeConfig, FbcBundle, FbcChannel, FbcChannelEntry, FbcPackage, FbcProperty } from './declarative-config.js';

/**
 * A seeded synthetic catalog shaped like the real ones (for benches of the loader, the validator
 * and the resolver): N packages × M versions, a `stable` channel with the whole replaces chain
 * (plus skips of hotfix builds that are not in the catalog and skipRanges over each minor), a
 * `candidate` channel with every other version and a `fast` channel with the newest fifth;
 * provided GVKs per package, and dependencies (`olm.gvk.required`, `olm.package.required`) only
 * on lower-numbered packages, so the dependency graph is acyclic and satisfiable. The same seed
 * always gives the same catalog. It validates clean.
 */
export interface SyntheticCatalogOptions {
  readonly seed: number;
  readonly packages: number;
  readonly versionsPerPackage: number;
}

/** A small fast PRNG (mulberry32): deterministic for a seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function packageName(index: number): string {
  return `synthetic-operator-${String(index).padStart(5, '0')}`;
}

function versionAt(index: number): { major: number; minor: number; patch: number } {
  return { major: 1 + Math.floor(index / 50), minor: Math.floor(index / 10) % 5, patch: index % 10 };
}

const kinds = ['Cluster', 'Backup', 'Restore', 'Pool', 'Gateway', 'Policy', 'Tenant', 'Monitor'];

function gvksOf(packageIndex: number, count: number): { group: string; kind: string; version: string }[] {
  return Array.from({ length: count }, (_, index) => ({
    group: `${packageName(packageIndex)}.example.com`,
    kind: kinds[index % kinds.length] ?? 'Thing',
    version: index < kinds.length ? 'v1' : 'v2',
  }));
}

/** The synthetic catalog as FBC blobs (what loading its files would give). */
export function generateSyntheticConfig(options: SyntheticCatalogOptions): DeclarativeConfig {
  const next = random(options.seed);
  const packages: FbcPackage[] = [];
  const channels: FbcChannel[] = [];
  const bundles: FbcBundle[] = [];
  const versions = Math.max(1, options.versionsPerPackage);
  const gvkCounts = Array.from({ length: options.packages }, () => 1 + Math.floor(next() * 4));
  for (let packageIndex = 0; packageIndex < options.packages; packageIndex += 1) {
    const name = packageName(packageIndex);
    const file = `${name}/catalog.json`;
    packages.push({
      schema: 'olm.package',
      name,
      defaultChannel: 'stable',
      description: `Synthetic operator ${packageIndex} for benchmarks.`,
      properties: [],
      position: { file, line: 1, index: 0 },
    });
    const bundleNames: string[] = [];
    const versionTexts: string[] = [];
    const stable: FbcChannelEntry[] = [];
    const dependencyIndex = packageIndex > 0 && next() < 0.3 ? Math.floor(next() * packageIndex) : -1;
    const packageDependencyIndex = packageIndex > 0 && next() < 0.2 ? Math.floor(next() * packageIndex) : -1;
    for (let versionIndex = 0; versionIndex < versions; versionIndex += 1) {
      const { major, minor, patch } = versionAt(versionIndex);
      const version = `${major}.${minor}.${patch}`;
      const bundleName = `${name}.v${version}`;
      bundleNames.push(bundleName);
      versionTexts.push(version);
      const entry: { name: string; replaces: string; skips: string[]; skipRange: string } = {
        name: bundleName,
        replaces: versionIndex > 0 ? (bundleNames[versionIndex - 1] ?? '') : '',
        skips: [],
        skipRange: '',
      };
      if (versionIndex > 0 && next() < 0.1) entry.skips = [`${name}.v${version}-hotfix.1`];
      if (patch > 0 && next() < 0.3) entry.skipRange = `>=${major}.${minor}.0 <${version}`;
      stable.push(entry);
      const properties: FbcProperty[] = [
        { type: 'olm.package', value: { packageName: name, version } },
        ...gvksOf(packageIndex, gvkCounts[packageIndex] ?? 1).map((gvk) => ({ type: 'olm.gvk', value: gvk })),
      ];
      if (dependencyIndex >= 0) {
        const [required] = gvksOf(dependencyIndex, 1);
        properties.push({ type: 'olm.gvk.required', value: required });
      }
      if (packageDependencyIndex >= 0) {
        properties.push({ type: 'olm.package.required', value: { packageName: packageName(packageDependencyIndex), versionRange: '>=1.0.0 <2.0.0' } });
      }
      properties.push({
        type: 'olm.csv.metadata',
        value: {
          displayName: `Synthetic ${packageIndex}`,
          description: `Operator ${name} version ${version}.`,
          keywords: ['synthetic', 'bench'],
          installModes: [
            { type: 'OwnNamespace', supported: true },
            { type: 'AllNamespaces', supported: true },
          ],
          provider: { name: 'Example' },
        },
      });
      bundles.push({
        schema: 'olm.bundle',
        name: bundleName,
        package: name,
        image: `quay.io/synthetic/${name}-bundle@sha256:${(packageIndex * 100_003 + versionIndex).toString(16).padStart(64, '0')}`,
        properties,
        relatedImages: [{ name: '', image: `quay.io/synthetic/${name}:v${version}` }],
        objects: [],
        csvJson: '',
        position: { file, line: 1, index: 3 + versionIndex },
      });
    }
    const subset = (indexes: number[]): FbcChannelEntry[] =>
      indexes.map((versionIndex, position) => ({
        name: bundleNames[versionIndex] ?? '',
        replaces: position > 0 ? (bundleNames[indexes[position - 1] ?? 0] ?? '') : '',
        skips: [],
        skipRange: '',
      }));
    const candidate = subset(bundleNames.map((_, index) => index).filter((index) => index % 2 === 0 || index === versions - 1));
    const fastStart = Math.floor(versions * 0.8);
    const fast = subset(bundleNames.map((_, index) => index).filter((index) => index >= fastStart));
    channels.push(
      { schema: 'olm.channel', name: 'candidate', package: name, entries: candidate, properties: [], position: { file, line: 1, index: 1 } },
      { schema: 'olm.channel', name: 'fast', package: name, entries: fast, properties: [], position: { file, line: 1, index: 2 } },
      { schema: 'olm.channel', name: 'stable', package: name, entries: stable, properties: [], position: { file, line: 1, index: 3 } },
    );
  }
  return { packages, channels, bundles, deprecations: [], others: [], files: packages.map((item) => `${item.name}/catalog.json`), errors: [] };
}

/** The synthetic catalog as a model (implements core's `CatalogContent`). */
export function generateSyntheticCatalog(options: SyntheticCatalogOptions): Catalog {
  return buildCatalog(generateSyntheticConfig(options)).catalog;
}

import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogBundle, CatalogContent, Property } from '@olm/core';
import { loadCatalog } from '../src/index.js';
import { createRegistryClient, loadCatalogFromRegistry, startRegistryServer } from '../src/grpc/index.js';
import type { RegistryClient, RegistryServer } from '../src/grpc/index.js';

// The real certified-operators catalog, served in-process and read back through the client:
// the remote model must match the directory load package by package, channel by channel, bundle by bundle.
const catalogDir = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));

const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]))
      : value;

/** Properties as comparable text; bundle objects decoded (the wire re-encodes them as compact sorted JSON). */
function comparable(properties: readonly Property[]): string[] {
  return properties
    .map((property) => {
      if (property.type === 'olm.bundle.object') {
        const text = Buffer.from((property.value as { data: string }).data, 'base64').toString('utf8');
        return `${property.type} ${JSON.stringify(sortedKeys(JSON.parse(text)))}`;
      }
      return `${property.type} ${JSON.stringify(sortedKeys(property.value))}`;
    })
    .sort();
}

const hasCsvMetadata = (bundle: CatalogBundle): boolean => bundle.properties.some((property) => property.type === 'olm.csv.metadata');

describe('gRPC round trip of the real certified-operators catalog', () => {
  let directory: CatalogContent;
  let server: RegistryServer;
  let client: RegistryClient;
  let remote: CatalogContent;

  beforeAll(async () => {
    directory = await loadCatalog(catalogDir);
    server = await startRegistryServer({ catalog: directory });
    client = createRegistryClient(server.address);
    remote = await loadCatalogFromRegistry(client);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('serves every package with its channel heads and one ListBundles message per channel membership', async () => {
    expect(await client.listPackages()).toEqual([...directory.packages.keys()].sort());
    let memberships = 0;
    for (const pkg of directory.packages.values()) for (const channel of pkg.channels.values()) memberships += channel.entries.length;
    let messages = 0;
    let withManifests = 0;
    for await (const bundle of client.listBundles()) {
      messages += 1;
      if (bundle.csvJson !== '' || bundle.object.length > 0) withManifests += 1;
    }
    expect(messages).toBe(memberships);
    expect(memberships).toBe(1230);
    // Every bundle here has an image, so ListBundles drops all manifests.
    expect(withManifests).toBe(0);
  });

  it('rebuilds the same packages, channels and bundles as the directory load', () => {
    expect([...remote.packages.keys()].sort()).toEqual([...directory.packages.keys()].sort());
    let bundles = 0;
    for (const [name, pkg] of directory.packages) {
      const copy = remote.packages.get(name);
      expect(copy?.defaultChannel, name).toBe(pkg.defaultChannel);
      expect(copy?.icon, name).toEqual(pkg.icon);
      expect([...(copy?.channels.keys() ?? [])].sort(), name).toEqual([...pkg.channels.keys()].sort());
      for (const [channelName, channel] of pkg.channels) {
        const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
        const entries = [...(copy?.channels.get(channelName)?.entries ?? [])].sort(byName);
        const expected = [...channel.entries].sort(byName).map((entry) => ({
          name: entry.name,
          ...(entry.replaces ? { replaces: entry.replaces } : {}),
          ...(entry.skips && entry.skips.length > 0 ? { skips: entry.skips } : {}),
          ...(entry.skipRange ? { skipRange: entry.skipRange } : {}),
        }));
        expect(entries, `${name}/${channelName}`).toEqual(expected);
      }
      expect([...(copy?.bundles.keys() ?? [])].sort(), name).toEqual([...pkg.bundles.keys()].sort());
      for (const [bundleName, bundle] of pkg.bundles) {
        bundles += 1;
        const other = copy?.bundles.get(bundleName);
        expect(other?.image, bundleName).toBe(bundle.image);
        expect(other?.version, bundleName).toBe(bundle.version);
        expect(comparable(other?.properties ?? []), bundleName).toEqual(comparable(bundle.properties));
        // A synthesised CSV carries the bundle's related images; a real CSV only its own.
        if (hasCsvMetadata(bundle)) expect(other?.relatedImages ?? [], bundleName).toEqual(bundle.relatedImages ?? []);
      }
    }
    expect(bundles).toBe(739);
  });

  it('answers GetBundle with the manifests: a synthesised CSV or the decoded bundle objects', async () => {
    let checked = 0;
    for (const pkg of directory.packages.values()) {
      for (const [channelName, channel] of pkg.channels) {
        const entry = channel.entries[0];
        if (!entry || checked > 40) continue;
        const bundle = pkg.bundles.get(entry.name) as CatalogBundle;
        const found = await client.getBundle(pkg.name, channelName, entry.name);
        const csv = JSON.parse(found.csvJson) as { kind: string; metadata: { name: string } };
        expect(csv.kind).toBe('ClusterServiceVersion');
        if (hasCsvMetadata(bundle)) {
          expect(found.object).toEqual([found.csvJson]);
          expect(csv.metadata.name).toBe(entry.name);
        } else {
          expect(found.object.length).toBe(bundle.properties.filter((property) => property.type === 'olm.bundle.object').length);
        }
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});

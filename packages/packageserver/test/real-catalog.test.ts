import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { channelHead, createRegistryClient, loadCatalog, startRegistryServer, type Catalog, type RegistryClient, type RegistryServer } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackageManifest, createApiHandler, PackageManifestStore, readRegistry, type PackageManifest } from '../src/index.js';
import { openApiDocument } from '../src/openapi.js';
import { realCatalogDir } from './helpers.js';
import { undocumentedFields } from './openapi-coverage.js';

/**
 * The shared certified-operators catalog (59 packages, 19.6 MB) served by a real registry server:
 * every package becomes a PackageManifest with the catalog's default channel, one channel per
 * catalog channel headed by opm's channel head, and every bundle of the channel as an entry.
 */
describe.skipIf(!existsSync(realCatalogDir))('PackageManifests of the real certified-operators catalog', () => {
  let catalog: Catalog;
  let registry: RegistryServer;
  let client: RegistryClient;
  let manifests: Map<string, PackageManifest>;
  let problems: string[];

  beforeAll(async () => {
    catalog = await loadCatalog(realCatalogDir);
    registry = await startRegistryServer({ catalog, port: 0 });
    client = createRegistryClient(registry.address, { deadlineMs: 60_000 });
    const contents = await readRegistry(client);
    problems = [...contents.problems];
    manifests = new Map();
    for (const pkg of contents.packages) {
      const built = buildPackageManifest({ namespace: 'olm', name: 'certified-operators', displayName: 'Certified Operators', publisher: 'Red Hat' }, pkg);
      problems.push(...built.problems);
      if (built.manifest) manifests.set(built.manifest.metadata.name, built.manifest);
    }
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await registry?.stop();
  });

  it('has no field the OpenAPI schema leaves out (what kubectl explain describes)', () => {
    const schemas = openApiDocument.components.schemas;
    const manifestSchema = Object.values(schemas).find((schema) => (schema['x-kubernetes-group-version-kind'] as Array<{ kind: string }> | undefined)?.[0]?.kind === 'PackageManifest');
    expect(manifests.size).toBeGreaterThan(50);
    const undocumented = new Set([...manifests.values()].flatMap((manifest) => undocumentedFields(manifest, manifestSchema, schemas).map((path) => path.replace(/\[\d+\]/g, '[]'))));
    expect([...undocumented]).toEqual([]);
  });

  it('has one manifest per package, with the default channel and the channel heads', () => {
    expect(problems).toEqual([]);
    expect([...manifests.keys()]).toEqual([...catalog.packages.keys()].sort());
    for (const pkg of catalog.packages.values()) {
      const manifest = manifests.get(pkg.name)!;
      expect(manifest.status.defaultChannel, pkg.name).toBe(pkg.defaultChannel);
      expect(manifest.status.packageName).toBe(pkg.name);
      expect(manifest.status.channels.map((channel) => channel.name), pkg.name).toEqual([...pkg.channels.keys()].sort());
      for (const channel of manifest.status.channels) {
        const modelChannel = pkg.channels.get(channel.name)!;
        const head = channelHead(modelChannel).name;
        expect(channel.currentCSV, `${pkg.name}/${channel.name}`).toBe(head);
        expect(channel.currentCSVDesc.version, `${pkg.name}/${channel.name}`).toBe(pkg.bundles.get(head)?.version);
        expect(channel.entries.map((entry) => entry.name).sort(), `${pkg.name}/${channel.name}`).toEqual(modelChannel.entries.map((entry) => entry.name).sort());
      }
      const defaultHead = manifest.status.channels.find((channel) => channel.name === pkg.defaultChannel)!;
      expect(manifest.status.provider, pkg.name).toEqual(defaultHead.currentCSVDesc.provider);
      expect(manifest.metadata.labels['provider']).toBe(defaultHead.currentCSVDesc.provider.name ?? '');
    }
  });

  it('keeps icons for the icon subresource and serves them with their media type', async () => {
    const withIcons = [...manifests.values()].filter((manifest) =>
      manifest.status.channels.some((channel) => channel.name === manifest.status.defaultChannel && (channel.currentCSVDesc.icon?.length ?? 0) > 0),
    );
    expect(withIcons.length).toBeGreaterThan(40);
    const store = new PackageManifestStore({ globalNamespace: 'olm' });
    store.replaceCatalog({ namespace: 'olm', name: 'certified-operators' }, [...manifests.values()]);
    const server: Server = createServer(createApiHandler({ store, isReady: () => true, trackWatch: () => () => {} }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/apis/packages.operators.coreos.com/v1/namespaces/anywhere/packagemanifests`;
      const sample = withIcons[0]!;
      const icon = sample.status.channels.find((channel) => channel.name === sample.status.defaultChannel)!.currentCSVDesc.icon![0]!;
      const response = await fetch(`${base}/${sample.metadata.name}/icon`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(icon.mediatype);
      expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(icon.base64data!, 'base64'))).toBe(true);
      const etag = response.headers.get('etag')!;
      expect((await fetch(`${base}/${sample.metadata.name}/icon`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
      // Objects leave icons out, as upstream's do: lists of big catalogs stay small.
      const list = (await (await fetch(base)).json()) as { items: PackageManifest[] };
      expect(list.items).toHaveLength(manifests.size);
      expect(list.items.every((item) => item.status.channels.every((channel) => channel.currentCSVDesc.icon === undefined))).toBe(true);
      expect(JSON.stringify(list).length).toBeLessThan(JSON.stringify([...manifests.values()]).length);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

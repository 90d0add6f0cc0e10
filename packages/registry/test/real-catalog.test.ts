import { fileURLToPath } from 'node:url';
import type { CatalogContent } from '@olm/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog, validateCatalog } from '../src/index.js';
import type { Catalog } from '../src/index.js';

const catalogDir = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));

describe('the real certified-operators catalog', () => {
  let catalog: Catalog;
  beforeAll(async () => {
    catalog = await loadCatalog(catalogDir);
  });

  it('validates clean', async () => {
    const report = await validateCatalog(catalogDir);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.valid).toBe(true);
  });

  it('has the documented counts, and implements CatalogContent', () => {
    const content: CatalogContent = catalog;
    const packages = [...content.packages.values()];
    expect(packages).toHaveLength(59);
    expect(packages.reduce((sum, item) => sum + item.channels.size, 0)).toBe(213);
    expect(packages.reduce((sum, item) => sum + item.bundles.size, 0)).toBe(739);
    expect(packages.reduce((sum, item) => sum + [...item.channels.values()].reduce((n, channel) => n + channel.entries.length, 0), 0)).toBe(1230);
    expect(packages.filter((item) => item.icon !== undefined)).toHaveLength(57);
  });

  it('decodes bundle objects and serves a CSV for every bundle', () => {
    const withObjects = [...catalog.bundles()].filter((bundle) => bundle.objects.length > 0);
    expect(withObjects.map((bundle) => bundle.name)).toEqual(['eda-openshift-operator.v5.0.0', 'eda-openshift-operator.v5.0.1', 'eda-openshift-operator.v5.0.2']);
    expect(withObjects.reduce((sum, bundle) => sum + catalog.bundleObjects(bundle).length, 0)).toBe(36);
    for (const bundle of catalog.bundles()) {
      const csv = JSON.parse(catalog.csvJson(bundle) ?? 'null') as { kind?: string; spec?: { version?: string } } | null;
      expect(csv?.kind, bundle.name).toBe('ClusterServiceVersion');
    }
  });

  it('parses properties through their types', () => {
    const bundle = catalog.bundle('cloud-native-postgresql', [...(catalog.package('cloud-native-postgresql')?.bundles.keys() ?? [])][0] ?? '');
    expect(bundle).toBeDefined();
    if (bundle === undefined) return;
    expect(catalog.properties(bundle, 'olm.package')).toEqual([{ packageName: 'cloud-native-postgresql', version: bundle.version }]);
    expect(catalog.properties<{ group: string }>(bundle, 'olm.gvk').every((gvk) => gvk.group === 'postgresql.k8s.enterprisedb.io')).toBe(true);
    const required = [...catalog.bundles()].flatMap((item) => catalog.properties<{ versionRange: string }>(item, 'olm.package.required'));
    expect(required).toHaveLength(22);
  });

  it('keeps multi-channel bundles once per package, listing their channels', () => {
    const multi = [...catalog.bundles()].filter((bundle) => bundle.channels.length > 1);
    expect(multi).toHaveLength(336);
    expect(Math.max(...multi.map((bundle) => bundle.channels.length))).toBe(12);
  });
});

describe('update graphs of the real catalog', () => {
  it('every channel has an opm head, sorts the OLM way, and upgrades reach the head', async () => {
    const { channelHead, sortChannel, upgradePath } = await import('../src/index.js');
    const catalog = await loadCatalog(catalogDir);
    const notReachingHead: string[] = [];
    let channels = 0;
    for (const catalogPackage of catalog.packages.values()) {
      for (const channel of catalogPackage.channels.values()) {
        channels += 1;
        const head = channelHead(channel).name;
        expect(sortChannel(channel)[0]?.name).toBe(head);
        for (const entry of channel.entries) {
          const version = catalogPackage.bundles.get(entry.name)?.version;
          const path = upgradePath(catalogPackage, channel.name, { name: entry.name, ...(version === undefined ? {} : { version }) });
          const end = path.length === 0 ? entry.name : path[path.length - 1]?.to;
          if (end !== head) notReachingHead.push(`${catalogPackage.name}/${channel.name}: ${entry.name} stops at ${end ?? ''}`);
        }
      }
    }
    expect(channels).toBe(213);
    // OLM's quirk, kept: an entry whose successor is both `replaces`d and `skips`ed by the next
    // entry is left out of the sorted channel, so nothing offers an upgrade from its predecessor.
    expect(notReachingHead).toEqual(['kurrentdb-operator/stable-v1: kurrentdb-operator.v1.4.3 stops at kurrentdb-operator.v1.4.3']);
  });
});

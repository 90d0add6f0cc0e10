import type { CatalogBundle, CatalogChannel, CatalogContent, CatalogPackage, ChannelEntry, GroupVersionKind, Property } from '@olm/core';

/** Builds CatalogContent by hand for tests: `pkg('a', 'alpha', { alpha: [...] }, [bundle(...)])`. */
export function catalog(...packages: CatalogPackage[]): CatalogContent {
  return { packages: new Map(packages.map((each) => [each.name, each])) };
}

export function pkg(name: string, defaultChannel: string, channels: Record<string, ChannelEntry[]>, bundles: CatalogBundle[]): CatalogPackage {
  const channelMap = new Map<string, CatalogChannel>(
    Object.entries(channels).map(([channel, entries]) => [channel, { name: channel, package: name, entries }]),
  );
  return { name, defaultChannel, channels: channelMap, bundles: new Map(bundles.map((each) => [each.name, each])) };
}

export function bundle(
  name: string,
  packageName: string,
  version: string,
  options: { provides?: GroupVersionKind[]; requires?: GroupVersionKind[]; properties?: Property[] } = {},
): CatalogBundle {
  return {
    name,
    package: packageName,
    image: `example.com/${name}`,
    version,
    properties: [
      { type: 'olm.package', value: { packageName, version } },
      ...(options.provides ?? []).map((gvk) => ({ type: 'olm.gvk', value: gvk })),
      ...(options.requires ?? []).map((gvk) => ({ type: 'olm.gvk.required', value: gvk })),
      ...(options.properties ?? []),
    ],
  };
}

export const gvk = (kind: string, group = 'example.com', version = 'v1'): GroupVersionKind => ({ group, version, kind });

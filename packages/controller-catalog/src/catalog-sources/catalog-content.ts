import type { CatalogBundle, CatalogContent, CatalogPackage } from '@olm/core';

/**
 * The content as the controller keeps it: without `olm.csv.metadata` properties and package icons,
 * which neither resolution nor installs read (upstream's registry API leaves the metadata out of
 * bundle properties too). On a large catalog they are most of its bytes.
 */
export function forResolution(content: CatalogContent): CatalogContent {
  const packages = new Map<string, CatalogPackage>();
  for (const [name, pkg] of content.packages) {
    const bundles = new Map<string, CatalogBundle>();
    for (const [bundleName, bundle] of pkg.bundles) bundles.set(bundleName, slimBundle(bundle));
    const { icon: _icon, ...rest } = pkg;
    packages.set(name, { ...rest, bundles });
  }
  return { packages };
}

export function slimBundle(bundle: CatalogBundle): CatalogBundle {
  return bundle.properties.some((property) => property.type === 'olm.csv.metadata')
    ? { ...bundle, properties: bundle.properties.filter((property) => property.type !== 'olm.csv.metadata') }
    : bundle;
}

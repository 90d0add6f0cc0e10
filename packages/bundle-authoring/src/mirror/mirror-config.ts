import jsYaml from 'js-yaml';
import type { MirroredImage } from './mirror-references.js';

const yaml = (value: unknown) => jsYaml.dump(value, { lineWidth: -1, noRefs: true });

/** A Kubernetes object name from the catalog's repository (`acme/catalog` → `catalog`). */
export function catalogObjectName(catalogImage: string): string {
  const repository = catalogImage.split('@')[0]!.split('/').pop()!.split(':')[0]!;
  return repository.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63) || 'mirrored-catalog';
}

/** The CatalogSource (OLM v0) and ClusterCatalog (OLM v1) serving the mirrored catalog image. */
export function catalogObjectsYaml(catalogImage: string, namespace = 'olm'): string {
  const name = catalogObjectName(catalogImage);
  return [
    yaml({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', metadata: { name, namespace }, spec: { sourceType: 'grpc', image: catalogImage, displayName: `${name} (mirrored)` } }),
    yaml({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name }, spec: { source: { type: 'Image', image: { ref: catalogImage } } } }),
  ].join('---\n');
}

/** Source repository → mirror repository of the images pulled at run time; `byTag` those some reference names by tag. */
function runtimeMirrors(images: readonly MirroredImage[]): Array<{ source: string; mirror: string; byTag: boolean }> {
  const mirrors = new Map<string, { source: string; mirror: string; byTag: boolean }>();
  for (const image of images.filter((entry) => entry.runtime)) {
    const known = mirrors.get(image.sourceName);
    mirrors.set(image.sourceName, { source: image.sourceName, mirror: image.targetRepository, byTag: (known?.byTag ?? false) || image.tag !== undefined });
  }
  return [...mirrors.values()].sort((a, b) => (a.source < b.source ? -1 : 1));
}

/**
 * The cluster's mirror configuration for the images pulled at run time (operands, related images): an
 * `ImageDigestMirrorSet` (and an `ImageTagMirrorSet` for repositories referenced by tag, whose tags
 * were copied too), as OpenShift reads them, and the same as a containers `registries.conf` snippet
 * for CRI-O or podman nodes. Empty when no image is pulled at run time.
 */
export function mirrorConfiguration(images: readonly MirroredImage[], name: string): string {
  const mirrors = runtimeMirrors(images);
  if (mirrors.length === 0) return '';
  const entries = (list: typeof mirrors) => list.map(({ source, mirror }) => ({ source, mirrors: [mirror] }));
  const tagged = mirrors.filter((entry) => entry.byTag);
  const sets = [yaml({ apiVersion: 'config.openshift.io/v1', kind: 'ImageDigestMirrorSet', metadata: { name }, spec: { imageDigestMirrors: entries(mirrors) } })];
  if (tagged.length > 0) sets.push(yaml({ apiVersion: 'config.openshift.io/v1', kind: 'ImageTagMirrorSet', metadata: { name }, spec: { imageTagMirrors: entries(tagged) } }));
  const conf = mirrors
    .map(({ source, mirror, byTag }) => `[[registry]]\nlocation = "${source}"\n\n[[registry.mirror]]\nlocation = "${mirror}"\npull-from-mirror = "${byTag ? 'all' : 'digest-only'}"\n`)
    .join('\n');
  return `${sets.join('---\n')}---\n# containers registries.conf (e.g. /etc/containers/registries.conf.d/${name}.conf):\n${conf.replace(/^/gm, '# ').replace(/# $/gm, '#')}`;
}

import { fileURLToPath } from 'node:url';
import type { KubeObject } from '@olm/core';
import { loadCatalog } from '@olm/registry';

const exampleCatalog = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));

/** A bundle of the example catalog as the renderer takes it: name, properties and decoded manifests. */
export async function exampleBundle(packageName: string, bundleName: string) {
  const catalog = await loadCatalog(exampleCatalog);
  const bundle = catalog.bundle(packageName, bundleName);
  if (!bundle) throw new Error(`the example catalog has no bundle ${bundleName}`);
  return { bundle, manifests: catalog.bundleObjects(bundle) as KubeObject[] };
}

/** The example CSV with `change` applied to a copy (for hand-made variants). */
export function withCsv(manifests: readonly KubeObject[], change: (csv: any) => void): KubeObject[] {
  return manifests.map((manifest) => {
    if (manifest.kind !== 'ClusterServiceVersion') return manifest;
    const copy = structuredClone(manifest);
    change(copy);
    return copy;
  });
}

export function installModes(...supported: string[]) {
  return ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({ type, supported: supported.includes(type) }));
}

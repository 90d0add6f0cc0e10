import { fileURLToPath } from 'node:url';
import { renderRegistryV1Bundle, type RenderedBundle } from '@olm/bundle-render';
import type { KubeObject } from '@olm/core';
import { loadCatalog } from '@olm/registry';

const exampleCatalog = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));

/** A bundle of the example catalog rendered for ClusterExtension `extensionName`, with its identity as the controller passes it. */
export async function renderedExample(bundleName: string, options: { extensionName: string; installNamespace: string; watchNamespace?: string }) {
  const catalog = await loadCatalog(exampleCatalog);
  const bundle = catalog.bundle('acme-database', bundleName);
  if (!bundle) throw new Error(`the example catalog has no bundle ${bundleName}`);
  const rendered: RenderedBundle = renderRegistryV1Bundle({ bundle, manifests: catalog.bundleObjects(bundle) as KubeObject[], ...options });
  const version = bundleName.replace(/^acme-database\.v/, '');
  return { rendered, bundle: { name: bundleName, version } };
}

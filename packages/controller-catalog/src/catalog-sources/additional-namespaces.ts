import type { KindNamespaces } from '@olm/controller-runtime';
import { Kinds } from '../kinds.js';

/**
 * What the catalog controller must see beyond the namespaces a controller runtime is limited to:
 * the CatalogSources of the global catalog namespace, which serve every namespace. Pass it as
 * `additionalNamespaces` to `createManager` or `createControllerRuntimePlugin` along with their
 * `namespaces`; without a limit everything is seen and it changes nothing.
 */
export function catalogControllerAdditionalNamespaces(globalCatalogNamespace = 'olm'): KindNamespaces[] {
  return [{ ...Kinds.catalogSource, namespaces: [globalCatalogNamespace] }];
}

import { controllerPlugins, type DistributionOptions, type LazyPlugin } from '@olm/olm';

/** The plugins of OLM v1 (operator-controller and catalogd upstream), and the runtime they run on. */
export const v1PluginIds: ReadonlySet<string> = new Set(['controller-runtime', 'controller-cluster-catalog', 'controller-cluster-extension', 'image-signatures']);

/**
 * This distribution's composition: apps/olm's controller list cut to OLM v1's plugins, no package
 * edited. Nothing resolves for Subscriptions, installs CSVs or serves CatalogSources: a platform team
 * that wants only ClusterExtensions boots this.
 */
export function distributionPlugins(options: DistributionOptions): LazyPlugin[] {
  return controllerPlugins(options).filter((plugin) => v1PluginIds.has(plugin.id));
}

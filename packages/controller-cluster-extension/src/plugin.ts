import { catalogServerCertificate, contribute, definePlugin, kubeClient, optional, reconcilers, type Plugin } from '@olm/core';
import { createRevisionApplier } from '@olm/revision-applier';
import { createClusterExtensionController, type ClusterExtensionControllerOptions } from './controller.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export interface ControllerClusterExtensionPluginOptions extends ClusterExtensionControllerOptions {
  /** Where the applier keeps revision records (Secrets); `@olm/revision-applier`'s default otherwise. */
  readonly revisionNamespace?: string;
  /** Revisions kept per ClusterExtension, the installed one included; the applier's default otherwise. */
  readonly maxRevisions?: number;
}

/** The field manager of everything applied for ClusterExtensions. */
export const applyFieldManager = 'olm-v1';

/**
 * The ClusterExtension controller as a kernel plugin: contributes the `cluster-extension` reconciler,
 * applying bundles with `@olm/revision-applier` (as each ClusterExtension's ServiceAccount) through the
 * shared `kubeClient`. It trusts catalogd's content server by `catalogCa`, else, when the ClusterCatalog
 * plugin runs in the same process, by that server's own certificate.
 */
export function createControllerClusterExtensionPlugin(options: ControllerClusterExtensionPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-cluster-extension',
    version: packageJson.version,
    deps: { client: kubeClient, catalogServer: optional(catalogServerCertificate) },
    provides: [reconcilers],
    init({ client, catalogServer }) {
      const { revisionNamespace, maxRevisions, ...controllerOptions } = options;
      const applier = createRevisionApplier({
        client,
        fieldManager: applyFieldManager,
        ...(revisionNamespace !== undefined ? { revisionNamespace } : {}),
        ...(maxRevisions !== undefined ? { maxRevisions } : {}),
      });
      const catalogCa = options.catalogCa ?? catalogServer;
      const controller = createClusterExtensionController({ ...controllerOptions, ...(catalogCa !== undefined ? { catalogCa } : {}), client, applier });
      return { provide: controller.reconcilers.map((reconciler) => contribute(reconcilers, reconciler)) };
    },
  });
}

/** The plugin with default options. */
export const controllerClusterExtensionPlugin = createControllerClusterExtensionPlugin();

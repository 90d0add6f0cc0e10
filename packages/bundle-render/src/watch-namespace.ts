import type { InstallModeType } from '@olm/api';
import { dns1123LabelErrors } from '@olm/registry';
import { RenderErrorCodes, renderError } from './errors.js';

/** Where the setting lives on a ClusterExtension, for messages. */
export const watchNamespaceField = 'spec.config.inline.watchNamespace';

/** The install modes in upstream's order, for messages. */
const modeOrder: readonly InstallModeType[] = ['AllNamespaces', 'MultiNamespace', 'OwnNamespace', 'SingleNamespace'];

function listModes(modes: ReadonlySet<InstallModeType>): string {
  const listed = modeOrder.filter((mode) => modes.has(mode));
  return listed.length === 0 ? 'no install modes' : `install modes ${listed.join(', ')}${listed.length === 1 ? ' only' : ''}`;
}

/**
 * The namespaces the operator watches (`[""]` for all), from the bundle's install modes and the
 * ClusterExtension's watchNamespace, as upstream OLM v1 decides: without a watchNamespace, all
 * namespaces when AllNamespaces is supported, else the install namespace when OwnNamespace is the
 * only namespaced mode; a watchNamespace equal to the install namespace needs OwnNamespace, any
 * other needs SingleNamespace. MultiNamespace cannot be asked for.
 */
export function targetNamespaces(
  bundle: string,
  modes: ReadonlySet<InstallModeType>,
  installNamespace: string,
  watchNamespace: string | undefined,
): string[] {
  if (watchNamespace === undefined) {
    if (modes.has('AllNamespaces')) return [''];
    if (modes.has('OwnNamespace') && !modes.has('SingleNamespace')) return [installNamespace];
    throw refusal(
      bundle,
      modes,
      modes.has('SingleNamespace')
        ? `set ${watchNamespaceField} to the namespace the operator should watch${modes.has('OwnNamespace') ? ` (${installNamespace} for OwnNamespace)` : ''}`
        : 'this bundle cannot be installed by OLM v1 (it needs AllNamespaces, OwnNamespace or SingleNamespace)',
    );
  }
  const nameErrors = typeof watchNamespace === 'string' ? dns1123LabelErrors(watchNamespace) : ['must be a string'];
  if (nameErrors.length > 0) {
    const shown = JSON.stringify(watchNamespace) ?? String(watchNamespace);
    throw renderError(RenderErrorCodes.invalidInput, `${watchNamespaceField} ${shown} is not a namespace name: ${nameErrors.join('; ')}`, { field: watchNamespaceField });
  }
  if (!modes.has('SingleNamespace') && !(modes.has('OwnNamespace') && modes.has('AllNamespaces'))) {
    // Upstream treats the setting as an unknown field for such bundles.
    throw refusal(bundle, modes, `remove ${watchNamespaceField}${modes.has('OwnNamespace') ? ` (the operator always watches its install namespace ${installNamespace})` : ''}`);
  }
  if (watchNamespace === installNamespace && !modes.has('OwnNamespace')) {
    const orRemove = modes.has('AllNamespaces') ? ' or remove it' : '';
    throw refusal(bundle, modes, `${watchNamespaceField} must not be the install namespace ${installNamespace}: set another namespace${orRemove}`);
  }
  if (watchNamespace !== installNamespace && !modes.has('SingleNamespace')) {
    throw refusal(bundle, modes, `set ${watchNamespaceField} to the install namespace ${installNamespace}${modes.has('AllNamespaces') ? ' or remove it' : ''}`);
  }
  return [watchNamespace];
}

function refusal(bundle: string, modes: ReadonlySet<InstallModeType>, remedy: string) {
  return renderError(RenderErrorCodes.unsupportedInstallMode, `bundle ${bundle} supports ${listModes(modes)} (spec.installModes); ${remedy}`, {
    bundle,
    field: 'spec.installModes',
    supported: modeOrder.filter((mode) => modes.has(mode)),
  });
}

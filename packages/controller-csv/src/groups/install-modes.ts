import { OlmError } from '@olm/core';

export type InstallModeType = 'OwnNamespace' | 'SingleNamespace' | 'MultiNamespace' | 'AllNamespaces';

export interface InstallMode {
  readonly type: string;
  readonly supported: boolean;
}

/** The install modes a CSV declares; a type it does not list is unsupported. */
export type InstallModeSet = ReadonlyMap<string, boolean>;

/** Builds the set, refusing duplicates as upstream does (the CSV then fails with `InvalidInstallModes`). */
export function toInstallModeSet(modes: readonly InstallMode[] | undefined): InstallModeSet {
  const set = new Map<string, boolean>();
  for (const mode of modes ?? []) {
    if (set.has(mode.type)) {
      throw new OlmError(
        'OLM_CSV_INVALID_INSTALL_MODES',
        // Go's %v of the list, as upstream prints it: [{OwnNamespace true} {OwnNamespace false}]
        `InstallMode list contains duplicates, cannot make set: [${(modes ?? []).map((item) => `{${item.type} ${item.supported === true}}`).join(' ')}]`,
      );
    }
    set.set(mode.type, mode.supported === true);
  }
  return set;
}

/**
 * Why the install modes cannot serve the OperatorGroup's target namespaces, in upstream's words,
 * or undefined when they can. `""` as the only target means all namespaces.
 */
export function unsupportedTargetsReason(
  set: InstallModeSet,
  operatorNamespace: string,
  targetNamespaces: readonly string[],
): string | undefined {
  const supports = (type: InstallModeType) => set.get(type) === true;
  if (targetNamespaces.length === 0) {
    return 'operatorgroup has invalid selected namespaces, cannot configure to watch zero namespaces';
  }
  if (targetNamespaces.length === 1) {
    const only = targetNamespaces[0]!;
    if (only === operatorNamespace) {
      return supports('OwnNamespace')
        ? undefined
        : 'OwnNamespace InstallModeType not supported, cannot configure to watch own namespace';
    }
    if (only === '') {
      return supports('AllNamespaces')
        ? undefined
        : 'AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces';
    }
    return supports('SingleNamespace')
      ? undefined
      : 'SingleNamespace InstallModeType not supported, cannot configure to watch one namespace';
  }
  if (!supports('MultiNamespace')) {
    return `MultiNamespace InstallModeType not supported, cannot configure to watch ${targetNamespaces.length} namespaces`;
  }
  for (const namespace of targetNamespaces) {
    if (namespace === operatorNamespace && !supports('OwnNamespace')) {
      return 'OwnNamespace InstallModeType not supported, cannot configure to watch own namespace';
    }
    if (namespace === '') {
      return 'operatorgroup has invalid selected namespaces, NamespaceAll found when |selected namespaces| > 1';
    }
  }
  return undefined;
}

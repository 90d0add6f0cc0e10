/** The labels OLM v1 puts on every object it applies for a ClusterExtension, so a revision's objects can be found and pruned. */
export const OwnerKindLabel = 'olm.operatorframework.io/owner-kind';
export const OwnerNameLabel = 'olm.operatorframework.io/owner-name';
export const ClusterExtensionKind = 'ClusterExtension';

export function ownerLabels(extensionName: string): Record<string, string> {
  return { [OwnerKindLabel]: ClusterExtensionKind, [OwnerNameLabel]: extensionName };
}

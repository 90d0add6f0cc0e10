import type { RbacOwner, RbacOwnership } from '@olm/core';
import { CopiedLabelKey, CsvKind, OperatorGroupKind, OwnerKey, OwnerKindKey, OwnerNamespaceKey } from './labels.js';

/** Upstream's owner labels (`olm.owner`, `olm.owner.namespace`, `olm.owner.kind`, and `olm.copiedFrom` on copies). */
export const upstreamOwnership: RbacOwnership = Object.freeze({
  labelKeys: [OwnerKey, OwnerNamespaceKey, OwnerKindKey, CopiedLabelKey],
  selector(owner: RbacOwner, options?: { readonly copies?: boolean }) {
    return options?.copies
      ? `${CopiedLabelKey}=${owner.namespace},${OwnerKey}=${owner.name},${OwnerKindKey}=${owner.kind}`
      : `${OwnerKey}=${owner.name},${OwnerNamespaceKey}=${owner.namespace},${OwnerKindKey}=${owner.kind}`;
  },
  ownerOf(labels: Readonly<Record<string, string>>) {
    const kind: RbacOwner['kind'] | undefined = labels[OwnerKindKey] === CsvKind ? 'ClusterServiceVersion' : labels[OwnerKindKey] === OperatorGroupKind ? 'OperatorGroup' : undefined;
    const name = labels[OwnerKey];
    if (!name || !kind) return undefined;
    const copiedFrom = labels[CopiedLabelKey];
    return { kind, name, namespace: labels[OwnerNamespaceKey] ?? '', ...(copiedFrom !== undefined ? { copiedFrom } : {}) };
  },
});

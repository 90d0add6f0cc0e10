import { Labels } from '@olm/api';

interface Owner {
  readonly name: string;
  readonly namespace: string;
}

/**
 * Whether OLM may take over an existing APIService for `target` (upstream `IsAPIServiceAdoptable`): only
 * one labelled as owned by a CSV, and that CSV is the target itself, the CSV it replaces, or a CSV on its
 * way out (`currentOwnerLeaving`: Replacing or Deleting). An unlabelled APIService is never adopted.
 */
export function isApiServiceAdoptable(
  labels: Readonly<Record<string, string>> | undefined,
  target: Owner,
  replaced: Owner | undefined,
  currentOwnerLeaving: boolean,
): boolean {
  const kind = labels?.[Labels.ownerKind] ?? '';
  const name = labels?.[Labels.owner] ?? '';
  const namespace = labels?.[Labels.ownerNamespace] ?? '';
  if (kind === '' || name === '' || namespace === '' || kind !== 'ClusterServiceVersion') return false;
  if (currentOwnerLeaving) return true;
  return [target, ...(replaced ? [replaced] : [])].some((owner) => owner.name === name && owner.namespace === namespace);
}

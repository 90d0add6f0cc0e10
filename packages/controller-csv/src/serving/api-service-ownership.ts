import { CSVPhases, Labels } from '@olm/api';
import type { ObjectReader } from '@olm/core';
import { Kinds } from '../kinds.js';

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

/**
 * `isApiServiceAdoptable` for a CSV, reading from the cache the CSV it replaces and the APIService's
 * current owner (leaving when Replacing or Deleting).
 */
export function isApiServiceAdoptableBy(
  labels: Readonly<Record<string, string>> | undefined,
  csv: { readonly metadata: Owner; readonly spec?: { readonly replaces?: string } },
  cache: ObjectReader,
): boolean {
  const owner = cache.get(Kinds.clusterServiceVersion, labels?.[Labels.owner] ?? '', labels?.[Labels.ownerNamespace] ?? '');
  const phase = owner?.status?.phase;
  const replacedName = csv.spec?.replaces;
  const replaced = replacedName && replacedName !== csv.metadata.name ? (cache.get(Kinds.clusterServiceVersion, replacedName, csv.metadata.namespace)) : undefined;
  const replacedOwner = replaced?.metadata?.name ? { name: replaced.metadata.name, namespace: csv.metadata.namespace } : undefined;
  return isApiServiceAdoptable(labels, csv.metadata, replacedOwner, phase === CSVPhases.Replacing || phase === CSVPhases.Deleting);
}

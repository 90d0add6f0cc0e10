import { FieldManagers, Kinds } from '@olm/api';
import type { CachedNamespaced, ClusterServiceVersion, OperatorGroup } from '@olm/api';

/** The field manager of everything the OLM operator writes. */
export const fieldManager = FieldManagers.olmOperator;

export { Kinds };

/** A CSV and an OperatorGroup as stored (named, namespaced). */
export type Csv = CachedNamespaced<ClusterServiceVersion>;
export type Og = CachedNamespaced<OperatorGroup>;

export function csvReference(csv: { metadata: { name: string; namespace: string } }) {
  return { ...Kinds.clusterServiceVersion, name: csv.metadata.name, namespace: csv.metadata.namespace };
}

export function ogReference(og: { metadata: { name: string; namespace: string } }) {
  return { ...Kinds.operatorGroup, name: og.metadata.name, namespace: og.metadata.namespace };
}

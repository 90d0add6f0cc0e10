import { FieldManagers, Kinds } from '@olm/api';
import type { CachedNamespaced, OperatorGroup } from '@olm/api';

/** The field manager of everything the OLM operator writes. */
export const fieldManager = FieldManagers.olmOperator;

export { Kinds };

/** An OperatorGroup as stored (named, namespaced); a CSV is `@olm/api`'s `CachedCsv`. */
export type Og = CachedNamespaced<OperatorGroup>;

export function csvReference(csv: { metadata: { name: string; namespace: string } }) {
  return { ...Kinds.clusterServiceVersion, name: csv.metadata.name, namespace: csv.metadata.namespace };
}

export function ogReference(og: { metadata: { name: string; namespace: string } }) {
  return { ...Kinds.operatorGroup, name: og.metadata.name, namespace: og.metadata.namespace };
}

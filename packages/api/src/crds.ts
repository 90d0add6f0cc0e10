import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from './custom-resource-definition.js';
import { catalogSourcesCrd } from './crds/catalog-sources.js';
import { clusterCatalogsCrd } from './crds/cluster-catalogs.js';
import { clusterExtensionsCrd } from './crds/cluster-extensions.js';
import { clusterServiceVersionsCrd } from './crds/cluster-service-versions.js';
import { installPlansCrd } from './crds/install-plans.js';
import { olmConfigsCrd } from './crds/olm-configs.js';
import { operatorConditionsCrd } from './crds/operator-conditions.js';
import { operatorGroupsCrd } from './crds/operator-groups.js';
import { operatorsCrd } from './crds/operators.js';
import { subscriptionsCrd } from './crds/subscriptions.js';

/**
 * Fresh copies of OLM's CustomResourceDefinitions, sorted by name: OLM v0's (operators.coreos.com) and the
 * OLM v1 kinds this project serves (olm.operatorframework.io: ClusterCatalog, ClusterExtension).
 */
export function buildCrds(): CustomResourceDefinition[] {
  return [
    catalogSourcesCrd(),
    clusterCatalogsCrd(),
    clusterExtensionsCrd(),
    clusterServiceVersionsCrd(),
    installPlansCrd(),
    olmConfigsCrd(),
    operatorConditionsCrd(),
    operatorGroupsCrd(),
    operatorsCrd(),
    subscriptionsCrd(),
  ];
}

/**
 * OLM's CustomResourceDefinitions (operators.coreos.com and olm.operatorframework.io), sorted by name. Shared data: treat it as
 * read-only, or take your own copy with {@link buildCrds}. (The validator keeps its own copy, so changes
 * here never change how objects are validated.)
 */
export const crds: CustomResourceDefinition[] = buildCrds();

/** OLM's kinds, by `kind`. */
export const crdsByKind: ReadonlyMap<string, CustomResourceDefinition> = new Map(crds.map((crd) => [crd.spec.names.kind, crd]));

/** The CRD of a kind (`ClusterServiceVersion`), a plural (`clusterserviceversions`), a short name (`csv`) or a CRD name (`clusterserviceversions.operators.coreos.com`). */
export function findCrd(name: string): CustomResourceDefinition | undefined {
  const lower = name.toLowerCase();
  return crds.find(
    (crd) =>
      crd.spec.names.kind.toLowerCase() === lower ||
      crd.spec.names.plural === lower ||
      crd.spec.names.singular === lower ||
      crd.metadata.name === lower ||
      (crd.spec.names.shortNames ?? []).includes(lower),
  );
}

/** The served version of `kind` for `apiVersion` (`operators.coreos.com/v1alpha1`), if any. */
export function findCrdVersion(apiVersion: string, kind: string): { crd: CustomResourceDefinition; version: CustomResourceDefinitionVersion } | undefined {
  const crd = crdsByKind.get(kind);
  if (!crd) return undefined;
  const slash = apiVersion.indexOf('/');
  if (slash < 0 || apiVersion.slice(0, slash) !== crd.spec.group) return undefined;
  const version = crd.spec.versions.find((candidate) => candidate.served && candidate.name === apiVersion.slice(slash + 1));
  return version ? { crd, version } : undefined;
}

/** The storage version's apiVersion of a kind (`operators.coreos.com/v1` for OperatorGroup). */
export function storageApiVersion(kind: string): string | undefined {
  const crd = crdsByKind.get(kind);
  const version = crd?.spec.versions.find((candidate) => candidate.storage);
  return crd && version ? `${crd.spec.group}/${version.name}` : undefined;
}

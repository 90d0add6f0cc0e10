import { type CachedCsv, Labels } from '@olm/api';
import type { CachedObject, ObjectReader, ReconcileRequest, Reconciler } from '@olm/core';
import { mapToOwner } from '@olm/controller-runtime';
import { componentKinds, Kinds, type ComponentKind } from './component-kinds.js';
import { invalidOperatorName, operatorNamesIn } from './component-labels.js';
import { adopt, type Component } from './components.js';
import type { Shared } from './shared.js';


/** A copy of a CSV in a target namespace: never adopted (its original is). */
export function isCopiedCsv(csv: CachedObject): boolean {
  return csv.metadata?.labels?.[Labels.copiedFrom] !== undefined;
}

// What a CSV may own besides the OLM objects that name it (Subscriptions, InstallPlans, CSVs).
const ownOlmKinds: readonly ComponentKind[] = [Kinds.subscription, Kinds.installPlan, Kinds.csv];
const ownableKinds = componentKinds.filter((kind) => !ownOlmKinds.includes(kind));

/**
 * Adoption of a CSV's components (upstream `adoption_controller.go`, `ReconcileClusterServiceVersion`):
 * every Operator the CSV is labelled a component of also gets, as components, what the CSV owns:
 * objects with an owner reference to it or OLM's owner labels naming it (Deployments, ServiceAccounts,
 * Roles, RoleBindings, ClusterRoles, ClusterRoleBindings, Services, ConfigMaps, Secrets, APIServices,
 * webhook configurations, its OperatorCondition) and the CRDs it owns. Labels are only added, never removed.
 */
export function createCsvAdoptionReconciler(shared: Shared): Reconciler {
  const toOwner = mapToOwner(Kinds.csv);
  // Copies own nothing (and are never adopted): the index of CSVs without `olm.copiedFrom` skips tens of thousands.
  const csvsOwningCrd = (crd: CachedObject, cache: ObjectReader): ReconcileRequest[] =>
    cache.list(Kinds.csv, { labelSelector: `!${Labels.copiedFrom}` })
      .filter((csv) => (csv.spec?.customresourcedefinitions?.owned ?? []).some((owned) => owned?.name === crd.metadata?.name))
      .map((csv) => ({ namespace: csv.metadata?.namespace ?? '', name: csv.metadata?.name ?? '' }));
  return {
    name: 'adoption-csv',
    for: Kinds.csv,
    // A copy is never adopted: its events (one per namespace and AllNamespaces operator) queue nothing.
    accepts: (csv) => !isCopiedCsv(csv),
    watches: ownableKinds.map((kind) => ({ ...kind, map: kind === Kinds.crd ? csvsOwningCrd : toOwner })),
    async reconcile({ namespace = '', name }, { cache, logger }) {
      const csv = cache.get(Kinds.csv, name, namespace);
      if (!csv || isCopiedCsv(csv)) return;
      const operators = operatorNamesIn(csv.metadata?.labels).filter((operator) => {
        const problem = invalidOperatorName(operator);
        if (problem) logger.warn('component label ignored', { csv: `${namespace}/${name}`, problem });
        return !problem;
      });
      if (operators.length === 0) return;
      const client = shared.client();
      for (const { kind, object } of ownedComponents(cache, csv)) {
        for (const operator of operators) await adopt(client, kind, object, operator);
      }
    },
  };
}

/** What a CSV owns, of every component kind, each once, from the cache. */
export function ownedComponents(cache: ObjectReader, csv: CachedCsv): Component[] {
  const name = csv.metadata?.name ?? '';
  const namespace = csv.metadata?.namespace ?? '';
  const uid = csv.metadata?.uid;
  const ownerLabels = `${Labels.owner}=${name},${Labels.ownerNamespace}=${namespace},${Labels.ownerKind}=${Kinds.csv.kind}`;
  const found = new Map<string, Component>();
  const add = (kind: ComponentKind, object: CachedObject) =>
    found.set(`${kind.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`, { kind, object });
  for (const kind of ownableKinds) {
    for (const object of cache.list(kind, { labelSelector: ownerLabels })) add(kind, object);
    if (!kind.namespaced || !uid) continue;
    for (const object of cache.list(kind, { namespace })) {
      if ((object.metadata?.ownerReferences ?? []).some((reference) => reference.uid === uid && reference.kind === Kinds.csv.kind)) add(kind, object);
    }
  }
  for (const owned of csv.spec?.customresourcedefinitions?.owned ?? []) {
    const crd = owned?.name ? cache.get(Kinds.crd, owned.name) : undefined;
    if (crd) add(Kinds.crd, crd);
  }
  return [...found.values()];
}

import { Labels } from '@olm/api';
import { Kinds as OperatorKinds, operatorNameFor } from '@olm/controller-operators';
import type { KubeClient } from '@olm/controller-runtime';
import { createdForAnnotation, csvKind, findSubscription, installPlanKind, subscriptionKind, type Json } from './install-plans.js';

/** One object, as `apiVersion`/`kind`/`name`/`namespace`. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** Everything `olm uninstall` deletes, or waits for OLM and garbage collection to delete, in order. */
export interface UninstallPlan {
  readonly subscription: ObjectRef;
  /** InstallPlans owned by this Subscription only (a plan shared with another Subscription stays). */
  readonly installPlans: readonly ObjectRef[];
  /** The custom resources of the CRDs the CSV owns, in every namespace. */
  readonly operands: readonly ObjectRef[];
  /** The installed CSV, and the one being installed when they differ. */
  readonly csvs: readonly ObjectRef[];
  /** What goes with the CSVs: their copies, and the objects owned by them alone or labelled as theirs (Deployments, RBAC, ...). */
  readonly withCsvs: readonly ObjectRef[];
  /** The CRDs the CSV owns (deleted with `--delete-crds`), but none another CSV still owns. */
  readonly crds: readonly ObjectRef[];
  /** Owned CRDs that stay, and why. */
  readonly keptCrds: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
  /** The OperatorGroup `olm install` made for this package, when no other Subscription is left in the namespace. */
  readonly operatorGroup?: ObjectRef;
  /** The `operators.coreos.com/v1` Operator `<package>.<namespace>` listing its components, deleted last. */
  readonly operator?: ObjectRef;
}

const crdKind = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;
const operatorGroupKind = { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup' } as const;
/** Namespaced kinds an install creates for a CSV and owns through ownerReferences. */
const ownedNamespacedKinds = [
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
] as const;
const ownerLabelledKinds = [
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
] as const;

export const refOf = (object: Json): ObjectRef => ({
  apiVersion: object.apiVersion!,
  kind: object.kind!,
  name: object.metadata!.name!,
  ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
});

/** Reads what uninstalling a package from a namespace means, as kubectl-operator's `uninstall` decides it, deleting nothing. */
export async function planUninstall(client: KubeClient, namespace: string, packageName: string): Promise<UninstallPlan> {
  const subscription = await findSubscription(client, namespace, packageName);
  const subscriptionUid = subscription.metadata!.uid;
  const installPlans = (await client.list<Json>(installPlanKind, { namespace })).items.filter((plan) => {
    const owners = plan.metadata?.ownerReferences ?? [];
    return owners.length > 0 && owners.every((owner) => owner.uid === subscriptionUid);
  });
  const csvNames = [...new Set([subscription.status?.installedCSV, subscription.status?.currentCSV].filter((name): name is string => Boolean(name)))];
  const csvs = (await Promise.all(csvNames.map((name) => client.find<Json>({ ...csvKind, name, namespace })))).filter((csv): csv is Json => csv !== undefined);
  const copies = (await client.list<Json>(csvKind, { labelSelector: `${Labels.copiedFrom}=${namespace}` })).items.filter((copy) => csvNames.includes(copy.metadata!.name!));
  const ownerUids = new Set([...csvs, ...copies].map((csv) => csv.metadata!.uid!));
  const ownedAlone = (object: Json) => {
    const owners = object.metadata?.ownerReferences ?? [];
    return owners.length > 0 && owners.every((owner) => ownerUids.has(owner.uid));
  };
  const withCsvs: Json[] = [...copies];
  for (const kind of ownedNamespacedKinds) {
    // Roles and RoleBindings are copied into target namespaces, owned by the copies there.
    const scope = kind.kind === 'Role' || kind.kind === 'RoleBinding' ? {} : { namespace };
    withCsvs.push(...(await client.list<Json>(kind, scope)).items.filter(ownedAlone));
  }
  for (const name of csvNames) {
    for (const kind of ownerLabelledKinds) {
      const selector = `${Labels.owner}=${name},${Labels.ownerNamespace}=${namespace},${Labels.ownerKind}=ClusterServiceVersion`;
      withCsvs.push(...(await client.list<Json>(kind, { labelSelector: selector })).items);
    }
  }

  const ownedCrdNames = [...new Set(csvs.flatMap((csv) => ((csv.spec?.customresourcedefinitions?.owned as Array<{ name: string }> | undefined) ?? []).map((crd) => crd.name)))];
  const otherOwners = (await client.list<Json>(csvKind)).items.filter(
    (csv) => csv.metadata?.labels?.[Labels.copiedFrom] === undefined && !(csv.metadata?.namespace === namespace && csvNames.includes(csv.metadata?.name ?? '')),
  );
  const crds: Json[] = [];
  const keptCrds: Array<{ name: string; reason: string }> = [];
  const operands: Json[] = [];
  for (const name of ownedCrdNames) {
    const crd = await client.find<Json>({ ...crdKind, name });
    if (!crd) continue;
    operands.push(...(await customResourcesOf(client, crd)));
    const alsoOwnedBy = otherOwners.filter((csv) => ((csv.spec?.customresourcedefinitions?.owned as Array<{ name: string }> | undefined) ?? []).some((owned) => owned.name === name));
    if (alsoOwnedBy.length > 0) keptCrds.push({ name, reason: `also owned by ${alsoOwnedBy.map((csv) => `${csv.metadata!.namespace}/${csv.metadata!.name}`).join(', ')}` });
    else crds.push(crd);
  }

  const remaining = (await client.list<Json>(subscriptionKind, { namespace })).items.filter((other) => other.metadata?.uid !== subscriptionUid);
  const groups = (await client.list<Json>(operatorGroupKind, { namespace })).items;
  const operatorGroup = remaining.length === 0 && groups.length === 1 && groups[0]!.metadata?.annotations?.[createdForAnnotation] === subscription.spec?.name ? groups[0] : undefined;

  const operator = await client.find<Json>({ ...OperatorKinds.operator, name: operatorNameFor(subscription.spec?.name ?? packageName, namespace) });

  return {
    subscription: refOf(subscription),
    installPlans: installPlans.map(refOf),
    operands: operands.map(refOf),
    csvs: csvs.map(refOf),
    withCsvs: withCsvs.map(refOf),
    crds: crds.map(refOf),
    keptCrds,
    ...(operatorGroup ? { operatorGroup: refOf(operatorGroup) } : {}),
    ...(operator ? { operator: refOf(operator) } : {}),
  };
}

/** Every object of a CRD's kind, in all namespaces (through its storage version). */
async function customResourcesOf(client: KubeClient, crd: Json): Promise<Json[]> {
  const versions = (crd.spec?.versions as Array<{ name: string; served?: boolean; storage?: boolean }> | undefined) ?? [];
  const version = versions.find((each) => each.storage) ?? versions.find((each) => each.served);
  if (!version) return [];
  return (await client.list<Json>({ apiVersion: `${crd.spec.group}/${version.name}`, kind: crd.spec.names.kind })).items;
}

/** `Kind namespace/name` or `Kind name`. */
export const describeRef = (ref: ObjectRef): string => `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;

import { CSVPhases, CSVUncopiableReasons } from '@olm/api';
import type { CachedObject, KubeClient, KubeObject, Logger, ObjectReader, RbacGenerator, RbacOwnership, ReconcileContext } from '@olm/core';
import { describeError } from '@olm/core';
import { isAlreadyExists, isNotFound, isSemanticallyEqual, isTerminatingNamespace } from '@olm/controller-runtime';
import { fieldManager } from '../kinds.js';
import { Kinds } from '../kinds.js';
import type { Csv, Og } from '../shared.js';

/** What converging a CSV's target-namespace RBAC takes: the client and the RBAC generator. */
export interface TargetRbacDependencies {
  client(): KubeClient;
  rbac(): RbacGenerator;
}

/**
 * RBAC in an OperatorGroup's target namespaces (upstream `ensureRBACInTargetNamespace`): the Roles and
 * RoleBindings OLM made for a CSV's `permissions` in the operator namespace are copied into every target
 * namespace, or lifted to ClusterRoles/ClusterRoleBindings for an AllNamespaces group. What the objects
 * look like is the RBAC generator's business (`permissionsForOperatorGroup`), so nothing here can grant
 * more than the CSV asks for; this module decides when they exist and converges the cluster to them.
 */

type RbacKind = typeof Kinds.role | typeof Kinds.roleBinding | typeof Kinds.clusterRole | typeof Kinds.clusterRoleBinding;

const rbacKinds: Readonly<Record<string, RbacKind>> = {
  Role: Kinds.role,
  RoleBinding: Kinds.roleBinding,
  ClusterRole: Kinds.clusterRole,
  ClusterRoleBinding: Kinds.clusterRoleBinding,
};

/** A copy or a lifted object stands for the Role or RoleBinding of the same name in the operator namespace. */
const sourceKinds: Readonly<Record<string, typeof Kinds.role | typeof Kinds.roleBinding>> = {
  Role: Kinds.role,
  ClusterRole: Kinds.role,
  RoleBinding: Kinds.roleBinding,
  ClusterRoleBinding: Kinds.roleBinding,
};

/** A Role, ClusterRole or one of their bindings, as read or as generated. */
export type RbacObject = CachedObject & {
  rules?: readonly unknown[] | null;
  roleRef?: { apiGroup?: string; kind?: string; name?: string };
  subjects?: readonly unknown[] | null;
};

export interface TargetRbacInput {
  readonly csv: Csv;
  /** The CSV's OperatorGroup when its namespace has exactly one. */
  readonly operatorGroup: Og | undefined;
  /** How the RBAC generator's objects name their owner (`RbacGenerator.ownership`). */
  readonly ownership: RbacOwnership;
  /** `permissionsForOperatorGroup` of the RBAC generator for the CSV in that group. */
  readonly generated: readonly KubeObject[];
  /** Names the generator gives the CSV's lifted ClusterRoles/ClusterRoleBindings, whatever its group targets now. */
  readonly liftedNames: ReadonlySet<string>;
  readonly cache: ObjectReader;
}

export interface TargetRbacPlan {
  /** Objects to create, or to update where they differ from the cluster, in the generator's order. */
  readonly apply: readonly RbacObject[];
  /** This CSV's copies and lifted objects that are no longer wanted. */
  readonly remove: readonly RbacObject[];
}

/** The generator's owner labels name the CSV (a copy in another namespace names the CSV it was copied from). */
function isOwnedBy(object: CachedObject, csv: Csv, ownership: RbacOwnership): boolean {
  const owner = ownership.ownerOf(object.metadata?.labels ?? {});
  if (owner?.kind !== 'ClusterServiceVersion' || owner.name !== csv.metadata.name) return false;
  if (object.metadata?.namespace && object.metadata.namespace !== csv.metadata.namespace) return owner.copiedFrom === csv.metadata.namespace;
  return owner.namespace === csv.metadata.namespace;
}

function csvOwner(namespace: string, name: string): { kind: 'ClusterServiceVersion'; name: string; namespace: string } {
  return { kind: 'ClusterServiceVersion', name, namespace };
}

function isOwnedByReference(object: CachedObject, csv: Csv): boolean {
  return (object.metadata?.ownerReferences ?? []).some(
    (reference) => reference.kind === 'ClusterServiceVersion' && reference.name === csv.metadata.name && (!csv.metadata.uid || reference.uid === csv.metadata.uid),
  );
}

/** Upstream copies only what exists: the Role or RoleBinding OLM made for the CSV in its namespace. */
function hasSource(object: KubeObject, csv: Csv, cache: ObjectReader, ownership: RbacOwnership): boolean {
  const kind = sourceKinds[object.kind];
  if (!kind || !object.metadata.name) return false;
  const source = cache.get(kind, object.metadata.name, csv.metadata.namespace);
  return source !== undefined && (isOwnedBy(source, csv, ownership) || isOwnedByReference(source, csv));
}

function isLiveNamespace(name: string, cache: ObjectReader): boolean {
  const namespace = cache.get(Kinds.namespace, name);
  return namespace !== undefined && !isTerminatingNamespace(namespace);
}

/**
 * Whether the CSV's group should give it RBAC beyond its namespace: it is past `None`, not deleted, and
 * not failed for a group reason (`IsUncopiable`; an `InterOperatorGroupOwnerConflict` CSV gets nothing).
 */
export function isActiveMember(csv: Csv): boolean {
  if (csv.metadata.deletionTimestamp) return false;
  const phase = csv.status?.phase ?? CSVPhases.None;
  return phase !== CSVPhases.None && !(CSVUncopiableReasons as readonly string[]).includes(csv.status?.reason ?? '');
}

export function keyOf(object: CachedObject): string {
  return `${object.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

function live(object: CachedObject, cache: ObjectReader): RbacObject | undefined {
  const kind = rbacKinds[object.kind ?? ''];
  if (!kind) return undefined;
  return cache.get(kind, object.metadata?.name ?? '', object.metadata?.namespace);
}

/** The copies and lifted objects of this CSV found in the cluster. */
export function managedTargetRbac(csv: Csv, cache: ObjectReader, liftedNames: ReadonlySet<string>, ownership: RbacOwnership): RbacObject[] {
  const copies = ownership.selector(csvOwner(csv.metadata.namespace, csv.metadata.name), { copies: true });
  const found: RbacObject[] = [];
  for (const kind of [Kinds.role, Kinds.roleBinding]) {
    for (const object of cache.list(kind, { labelSelector: copies })) {
      if (object.metadata?.namespace !== csv.metadata.namespace) found.push({ ...object, ...kind });
    }
  }
  for (const name of [...liftedNames].sort()) {
    for (const kind of [Kinds.clusterRole, Kinds.clusterRoleBinding]) {
      const object = cache.get(kind, name);
      if (object && isOwnedBy(object, csv, ownership)) found.push({ ...object, ...kind });
    }
  }
  return found;
}

/**
 * What the CSV's target-namespace RBAC should be. A Succeeded member gets every generated object whose
 * source exists (in namespaces that exist); a member in another phase keeps the objects it already has
 * (a reinstall does not take its permissions away) but gets no new ones; a CSV that is no member (no or
 * several groups, failed for a group reason, being deleted) gets none.
 */
export function planTargetRbac(input: TargetRbacInput): TargetRbacPlan {
  const { csv, cache, ownership } = input;
  const succeeded = csv.status?.phase === CSVPhases.Succeeded;
  const wanted =
    input.operatorGroup && isActiveMember(csv)
      ? (input.generated as RbacObject[]).filter((object) => {
          const generated = object as KubeObject;
          if (!hasSource(generated, csv, cache, ownership)) return false;
          const namespace = generated.metadata.namespace;
          if (namespace && !isLiveNamespace(namespace, cache)) return false;
          if (succeeded) return true;
          const existing = live(object, cache);
          return existing !== undefined && isOwnedBy(existing, csv, ownership);
        })
      : [];
  const wantedKeys = new Set(wanted.map(keyOf));
  // What lives in a namespace being deleted goes with it: no requests into it.
  const remove = managedTargetRbac(csv, cache, input.liftedNames, ownership).filter(
    (object) => !wantedKeys.has(keyOf(object)) && !isTerminatingNamespace(object.metadata?.namespace ? cache.get(Kinds.namespace, object.metadata.namespace) : undefined),
  );
  return { apply: wanted, remove };
}

// ---- converging ----------------------------------------------------------------------------

const ownerReferencesOf = (object: CachedObject) =>
  (object.metadata?.ownerReferences ?? []).map(({ apiVersion, kind, name, uid }) => ({ apiVersion, kind, name, uid }));

/** Whether the live object differs from the desired one in what OLM sets. */
export function rbacDiffers(liveObject: RbacObject, desired: RbacObject): boolean {
  const liveLabels = liveObject.metadata?.labels ?? {};
  if (Object.entries(desired.metadata?.labels ?? {}).some(([key, value]) => liveLabels[key] !== value)) return true;
  if (!isSemanticallyEqual(ownerReferencesOf(liveObject), ownerReferencesOf(desired))) return true;
  return (['rules', 'roleRef', 'subjects'] as const).some((field) => !isSemanticallyEqual(liveObject[field], desired[field]));
}

/** An object of the wanted name that OLM did not make for this CSV (the generator's owner labels say otherwise). */
export function isForeign(existing: CachedObject, desired: CachedObject, ownership: RbacOwnership): boolean {
  const have = existing.metadata?.labels ?? {};
  const want = desired.metadata?.labels ?? {};
  return ownership.labelKeys.some((key) => want[key] !== undefined && have[key] !== want[key]);
}

/**
 * Creates the object, or updates it in place (a binding whose roleRef changed is recreated: roleRef is
 * immutable). Returns false, changing nothing, when an object of that name belongs to someone else.
 */
export async function applyRbacObject(client: KubeClient, cache: ObjectReader, desired: RbacObject, ownership: RbacOwnership): Promise<boolean> {
  const existing = live(desired, cache);
  if (!existing) {
    try {
      await client.create(desired, { fieldManager });
    } catch (error) {
      // The cache is behind: the watch event of the existing object reconciles again.
      if (!isAlreadyExists(error)) throw error;
    }
    return true;
  }
  if (isForeign(existing, desired, ownership)) return false;
  if (!rbacDiffers(existing, desired)) return true;
  if (desired.roleRef && !isSemanticallyEqual(existing.roleRef, desired.roleRef)) {
    await deleteRbacObject(client, existing);
    await client.create(desired, { fieldManager });
    return true;
  }
  const metadata = {
    ...existing.metadata,
    labels: { ...(existing.metadata?.labels ?? {}), ...(desired.metadata?.labels ?? {}) },
    ownerReferences: desired.metadata?.ownerReferences ?? [],
  };
  delete (metadata as { managedFields?: unknown }).managedFields;
  await client.replace({ ...existing, ...desired, metadata }, { fieldManager });
  return true;
}

export async function deleteRbacObject(client: KubeClient, object: CachedObject): Promise<void> {
  const kind = rbacKinds[object.kind ?? ''];
  if (!kind) return;
  await client
    .delete({ ...kind, name: object.metadata?.name ?? '', ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}) })
    .catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
}

/** Applies the plan: every wanted object, then removal of the rest. */
export async function convergeTargetRbac(client: KubeClient, cache: ObjectReader, plan: TargetRbacPlan, ownership: RbacOwnership, logger?: Logger): Promise<void> {
  for (const object of plan.apply) {
    if (!(await applyRbacObject(client, cache, object, ownership))) {
      logger?.warn('not copying RBAC over an object OLM did not make for this CSV', { object: keyOf(object) });
    }
  }
  for (const object of plan.remove) await deleteRbacObject(client, object);
}

/**
 * On CSV deletion: its copies everywhere, and (as upstream's CSV deletion handler does) every cluster-scoped
 * ClusterRole/ClusterRoleBinding labelled with it as owner, lifted or from its `clusterPermissions`: owner
 * references cannot point from cluster-scoped objects to a namespaced CSV, so nothing else collects them.
 */
export function rbacOfDeletedCsv(
  namespace: string,
  name: string,
  cache: ObjectReader,
  options: { readonly clusterScoped: boolean; readonly ownership: RbacOwnership },
): CachedObject[] {
  const copies = options.ownership.selector(csvOwner(namespace, name), { copies: true });
  const found: CachedObject[] = [];
  for (const kind of [Kinds.role, Kinds.roleBinding]) {
    for (const object of cache.list(kind, { labelSelector: copies })) {
      if (object.metadata?.namespace !== namespace) found.push({ ...object, ...kind });
    }
  }
  if (options.clusterScoped) {
    const owner = options.ownership.selector(csvOwner(namespace, name));
    for (const kind of [Kinds.clusterRole, Kinds.clusterRoleBinding]) {
      for (const object of cache.list(kind, { labelSelector: owner })) found.push({ ...object, ...kind });
    }
  }
  return found;
}

// ---- the reconciler's entry points -----------------------------------------------------------

/** The names the generator gives the CSV's objects when its group targets all namespaces (its lifted objects). */
export function allNamespacesRbacNames(rbac: RbacGenerator, csv: Csv): string[] {
  const everywhere = {
    apiVersion: 'operators.coreos.com/v1',
    kind: 'OperatorGroup',
    metadata: { name: 'all-namespaces', namespace: csv.metadata.namespace },
    status: { namespaces: [''] },
  };
  const names: string[] = [];
  for (const object of rbac.permissionsForOperatorGroup({ csv, operatorGroup: everywhere })) {
    if (object.metadata.name) names.push(object.metadata.name);
  }
  return names;
}

/**
 * Names of the CSV's lifted objects, whatever its group targets now: what the generator lifts for an
 * AllNamespaces group (`allNamespacesRbacNames`), plus the names of the CSV's Roles/RoleBindings in its
 * namespace (the sources of lifted objects made from an older spec).
 */
export function liftedRbacNames(generatedNames: Iterable<string>, csv: Csv, cache: ObjectReader, ownership: RbacOwnership): Set<string> {
  const names = new Set(generatedNames);
  const owner = ownership.selector(csvOwner(csv.metadata.namespace, csv.metadata.name));
  for (const kind of [Kinds.role, Kinds.roleBinding]) {
    for (const source of cache.list(kind, { namespace: csv.metadata.namespace, labelSelector: owner })) {
      if (source.metadata?.name) names.add(source.metadata.name);
    }
  }
  return names;
}

/** What the RBAC generator made for a CSV at its last sync, and from which objects (see `generatedOnce`). */
export interface GeneratedRbac {
  readonly input: string;
  readonly allNamespacesNames: readonly string[];
  readonly forGroup: readonly KubeObject[];
}

/** An object as stored: its uid and resourceVersion name its content (undefined when it has none). */
function versionOf(object: CachedObject | undefined): string | undefined {
  if (!object) return '-';
  const { uid, resourceVersion } = object.metadata ?? {};
  return uid && resourceVersion ? `${uid}/${resourceVersion}` : undefined;
}

/**
 * The generator's output for these inputs, generated again only when one of them changed. The generator
 * is pure, and every input comes from the API server, where uid and resourceVersion name the content: a
 * sync following an unrelated event (most syncs) skips generating and hashing the CSV's RBAC.
 */
function generatedOnce(
  rbac: RbacGenerator,
  memory: Map<string, GeneratedRbac>,
  csv: Csv,
  operatorGroup: Og | undefined,
  copiedCsvs: readonly Csv[],
): GeneratedRbac {
  const grouped = operatorGroup?.status?.namespaces !== undefined && isActiveMember(csv);
  const versions = [versionOf(csv), grouped ? versionOf(operatorGroup) : '-', ...(grouped ? copiedCsvs.map(versionOf) : [])];
  const input = versions.includes(undefined) ? undefined : `${rbac.name} ${versions.join(' ')}`;
  const key = `${csv.metadata.namespace}/${csv.metadata.name}`;
  const known = memory.get(key);
  if (input !== undefined && known?.input === input) return known;
  const generated: GeneratedRbac = {
    input: input ?? '',
    allNamespacesNames: allNamespacesRbacNames(rbac, csv),
    forGroup: grouped
      ? rbac.permissionsForOperatorGroup({
          csv,
          operatorGroup,
          copiedCsvs,
        })
      : [],
  };
  if (input === undefined) memory.delete(key);
  else memory.set(key, generated);
  return generated;
}

/** Converges the CSV's RBAC in its group's target namespaces (see `planTargetRbac`). */
export async function syncTargetRbac(
  shared: TargetRbacDependencies,
  generatedRbac: Map<string, GeneratedRbac>,
  csv: Csv,
  copiedCsvs: readonly Csv[],
  context: ReconcileContext,
): Promise<void> {
  const groups = context.cache.list(Kinds.operatorGroup, { namespace: csv.metadata.namespace });
  const operatorGroup = groups.length === 1 ? groups[0] : undefined;
  let generated: GeneratedRbac;
  try {
    generated = generatedOnce(shared.rbac(), generatedRbac, csv, operatorGroup, copiedCsvs);
  } catch (error) {
    // Permissions the generator rejects were rejected when the InstallPlan was made: nothing to copy.
    context.logger.warn("couldn't generate RBAC for the operatorgroup's target namespaces", { error: describeError(error) });
    return;
  }
  const { ownership } = shared.rbac();
  const liftedNames = liftedRbacNames(generated.allNamespacesNames, csv, context.cache, ownership);
  const plan = planTargetRbac({ csv, operatorGroup, ownership, generated: generated.forGroup, liftedNames, cache: context.cache });
  await convergeTargetRbac(shared.client(), context.cache, plan, ownership, context.logger);
}

/** Removes what `rbacOfDeletedCsv` finds. */
export async function deleteTargetRbac(
  client: KubeClient,
  namespace: string,
  name: string,
  cache: ObjectReader,
  options: { readonly clusterScoped: boolean; readonly ownership: RbacOwnership },
): Promise<void> {
  for (const object of rbacOfDeletedCsv(namespace, name, cache, options)) await deleteRbacObject(client, object);
}

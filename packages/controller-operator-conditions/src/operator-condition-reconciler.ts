import type { CachedNamespaced, OperatorCondition } from '@olm/api';
import type { KubeClient, ObjectReader, Reconciler } from '@olm/core';
import { isAlreadyExists, isNamespaceTerminating, isNotFound, updateStatus } from '@olm/controller-runtime';
import { mirroredStatusConditions } from './condition-status-sync.js';
import { fieldManager, Kinds } from './kinds.js';
import {
  hasDesiredRoleRef,
  hasDesiredRules,
  hasDesiredSubjects,
  invalidServiceAccounts,
  isOwnedAsDesired,
  operatorConditionRole,
  operatorConditionRoleBinding,
  withDesiredOwner,
  type RbacObject,
} from './operator-condition-rbac.js';
import type { Shared } from './shared.js';
import { formatTime } from '@olm/go-format';

type OperatorConditionObject = CachedNamespaced<OperatorCondition>;

/**
 * The OperatorCondition controller (upstream `operatorcondition_controller.go`): for each
 * OperatorCondition, a Role and RoleBinding of its name let the operator's ServiceAccounts read and
 * update it, and the conditions the operator reports in `spec.conditions` are mirrored into
 * `status.conditions`, observed at the current generation (the upgrade gate reads them there).
 * `OPERATOR_CONDITION_NAME` is not set here: the CSV's `deployment` install strategy puts it on
 * every container already.
 */
export function createOperatorConditionReconciler(shared: Shared): Reconciler {
  return {
    name: 'operator-condition',
    for: Kinds.operatorCondition,
    // An edited or deleted Role or RoleBinding reconciles its OperatorCondition, which repairs it.
    owns: [Kinds.role, Kinds.roleBinding],
    // Cached only to know which namespaces are being deleted: no RBAC is created in those.
    watches: [{ ...Kinds.namespace, map: () => [] }],
    async reconcile({ namespace, name }, { cache, logger }) {
      const condition = cache.get(Kinds.operatorCondition, name, namespace);
      if (!condition || condition.metadata.deletionTimestamp || isNamespaceTerminating(cache, namespace)) return;
      const invalid = invalidServiceAccounts(condition);
      if (invalid.length > 0) {
        logger.warn('OperatorCondition names service accounts that cannot exist; they are not bound', {
          operatorCondition: `${namespace}/${name}`,
          serviceAccounts: invalid,
          fix: 'correct spec.serviceAccounts (lowercase DNS names), or the CSV install strategy it is generated from',
        });
      }
      const client = shared.client();
      await ensureRole(client, cache, operatorConditionRole(condition));
      await ensureRoleBinding(client, cache, operatorConditionRoleBinding(condition));
      await mirrorConditions(shared, condition);
    },
  };
}

async function ensureRole(client: KubeClient, cache: ObjectReader, desired: RbacObject): Promise<void> {
  const live = await liveOrCreated(client, cache, desired);
  if (!live || (isOwnedAsDesired(live, desired) && hasDesiredRules(live, desired))) return;
  await client.replace({ ...live, metadata: { ...live.metadata, ownerReferences: withDesiredOwner(live, desired) }, rules: desired.rules }, { fieldManager });
}

async function ensureRoleBinding(client: KubeClient, cache: ObjectReader, desired: RbacObject): Promise<void> {
  const live = await liveOrCreated(client, cache, desired);
  if (!live) return;
  if (!hasDesiredRoleRef(live, desired)) {
    // roleRef cannot change: bind anew.
    await client.delete({ ...Kinds.roleBinding, namespace: live.metadata.namespace, name: live.metadata.name }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    await client.create(desired, { fieldManager });
    return;
  }
  if (isOwnedAsDesired(live, desired) && hasDesiredSubjects(live, desired)) return;
  await client.replace({ ...live, metadata: { ...live.metadata, ownerReferences: withDesiredOwner(live, desired) }, subjects: desired.subjects }, { fieldManager });
}

/** The live object (from the cache, or the server when the cache is behind), or undefined once it was created as desired. */
async function liveOrCreated(client: KubeClient, cache: ObjectReader, desired: RbacObject): Promise<RbacObject | undefined> {
  // The desired object's own kind, a Role or a RoleBinding: read as the RBAC shape both share.
  const kind = { apiVersion: desired.apiVersion!, kind: desired.kind! };
  const cached = cache.get(kind, desired.metadata.name, desired.metadata.namespace) as RbacObject | undefined;
  if (cached) return cached;
  try {
    await client.create(desired, { fieldManager });
    return undefined;
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    return client.get<RbacObject>({ ...kind, namespace: desired.metadata.namespace, name: desired.metadata.name });
  }
}

async function mirrorConditions(shared: Shared, condition: OperatorConditionObject): Promise<void> {
  const now = () => formatTime(shared.now());
  const generation = (object: OperatorConditionObject) => object.metadata.generation ?? 0;
  if (!mirroredStatusConditions(condition.spec?.conditions, condition.status?.conditions, generation(condition), now())) return;
  await updateStatus<OperatorConditionObject>(
    shared.client(),
    { ...Kinds.operatorCondition, namespace: condition.metadata.namespace, name: condition.metadata.name },
    (live) => {
      const conditions = mirroredStatusConditions(live.spec?.conditions, live.status?.conditions, generation(live), now());
      if (!conditions) return false;
      live.status = { ...live.status, conditions };
      return true;
    },
    { fieldManager },
  );
}

import type { Reconciler } from '@olm/core';
import { isAlreadyExists, isNamespaceTerminating, updateObject } from '@olm/controller-runtime';
import {
  desiredOperatorCondition,
  isCopiedCsv,
  reconciledOperatorCondition,
  type OperatorConditionObject,
} from './desired-operator-condition.js';
import { fieldManager, Kinds } from './kinds.js';
import type { Shared } from './shared.js';

/**
 * The OperatorCondition generator (upstream `operatorconditiongenerator_controller.go`): every
 * ClusterServiceVersion that is not a copy gets an OperatorCondition of the same name, owned by
 * it (so the garbage collector removes it with the CSV), whose `spec.deployments` and
 * `spec.serviceAccounts` follow the CSV's install strategy.
 */
export function createOperatorConditionGeneratorReconciler(shared: Shared): Reconciler {
  return {
    name: 'operator-condition-generator',
    for: Kinds.clusterServiceVersion,
    // Copies get no OperatorCondition: tens of thousands of their events must not queue a reconcile each.
    accepts: (csv) => !isCopiedCsv(csv),
    // A changed or deleted OperatorCondition reconciles its CSV, which puts it back.
    owns: [Kinds.operatorCondition],
    // Cached only to know which namespaces are being deleted: nothing is created in those.
    watches: [{ ...Kinds.namespace, map: () => [] }],
    async reconcile({ namespace, name }, { cache }) {
      const csv = cache.get(Kinds.clusterServiceVersion, name, namespace);
      if (!csv || isCopiedCsv(csv) || csv.metadata?.deletionTimestamp || !csv.metadata?.uid || isNamespaceTerminating(cache, namespace)) return;
      const desired = desiredOperatorCondition(csv);
      const cached = cache.get(Kinds.operatorCondition, name, namespace);
      if (!cached) {
        try {
          await shared.client().create(desired, { fieldManager });
          return;
        } catch (error) {
          // The cache is behind: bring the existing one up to date below.
          if (!isAlreadyExists(error)) throw error;
        }
      } else if (!reconciledOperatorCondition(cached, desired)) {
        return;
      }
      await updateObject<OperatorConditionObject>(
        shared.client(),
        { ...Kinds.operatorCondition, namespace, name },
        (live) => {
          const next = reconciledOperatorCondition(live, desired);
          if (!next) return false;
          Object.assign(live, next);
          return true;
        },
        { fieldManager },
      );
    },
  };
}

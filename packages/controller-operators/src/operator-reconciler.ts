import type { Components } from '@olm/api';
import type { CachedObject, ReconcileResult, Reconciler } from '@olm/core';
import { isAlreadyExists, updateStatus } from '@olm/controller-runtime';
import { isDeepStrictEqual } from 'node:util';
import { componentKinds, fieldManager, Kinds } from './component-kinds.js';
import { invalidOperatorName, operatorNamesIn } from './component-labels.js';
import { operatorComponents } from './component-references.js';
import { hasLiveComponent, listComponents } from './components.js';
import type { Shared } from './shared.js';

interface OperatorObject extends CachedObject {
  metadata: NonNullable<CachedObject['metadata']> & { name: string; deletionTimestamp?: string };
  status?: { components?: Components };
}

/**
 * The Operator controller (upstream `operator_controller.go`): an Operator lists in
 * `status.components` its label selector and a reference, with status conditions, to every object
 * labelled `operators.coreos.com/<operator>`. A labelled object of a watched kind changing, appearing
 * or going reconciles its Operators; an Operator missing while components of it exist is created
 * (so deleting it while its Subscription exists brings it back). The status is written only when
 * it differs.
 */
export function createOperatorReconciler(shared: Shared): Reconciler {
  const operatorsOf = (object: CachedObject) => operatorNamesIn(object.metadata?.labels).map((name) => ({ name }));
  return {
    name: 'operator',
    for: Kinds.operator,
    watches: componentKinds.filter((kind) => kind.cached).map((kind) => ({ apiVersion: kind.apiVersion, kind: kind.kind, map: operatorsOf })),
    async reconcile({ name }, { cache }): Promise<ReconcileResult | void> {
      const client = shared.client();
      const refresh: ReconcileResult | undefined = shared.refreshIntervalMs > 0 ? { requeueAfter: shared.refreshIntervalMs } : undefined;
      const components = await listComponents(client, cache, name);
      const desired = operatorComponents(name, components);
      let operator = cache.get(Kinds.operator, name) as OperatorObject | undefined;
      if (!operator) {
        if (components.length === 0 || invalidOperatorName(name) || !(await hasLiveComponent(client, name))) return;
        try {
          operator = await client.create<OperatorObject>({ ...Kinds.operator, metadata: { name } }, { fieldManager });
        } catch (error) {
          if (!isAlreadyExists(error)) throw error;
        }
      } else if (operator.metadata.deletionTimestamp || isDeepStrictEqual(operator.status?.components, desired)) {
        return refresh;
      }
      await updateStatus<OperatorObject>(
        client,
        { ...Kinds.operator, name },
        (live) => {
          if (isDeepStrictEqual(live.status?.components, desired)) return false;
          live.status = { ...live.status, components: desired };
          return true;
        },
        { fieldManager },
      );
      return refresh;
    },
  };
}

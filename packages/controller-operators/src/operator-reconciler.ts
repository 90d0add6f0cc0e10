import type { Cached, Operator } from '@olm/api';
import type { CachedObject, Reconciler } from '@olm/core';
import { isAlreadyExists, updateStatus } from '@olm/controller-runtime';
import { isDeepStrictEqual } from 'node:util';
import { componentKinds, fieldManager, Kinds } from './component-kinds.js';
import { invalidOperatorName, operatorNamesIn } from './component-labels.js';
import { operatorComponents } from './component-references.js';
import { hasLiveComponent, listComponents } from './components.js';
import type { Shared } from './shared.js';

type OperatorObject = Cached<Operator>;

/**
 * The Operator controller (upstream `operator_controller.go`): an Operator lists in
 * `status.components` its label selector and a reference, with status conditions, to every object
 * labelled `operators.coreos.com/<operator>`. Every component kind is watched (Secrets, ConfigMaps,
 * Services and webhook configurations as metadata only), so a labelled object changing, appearing
 * or going reconciles its Operators and nothing is listed again periodically. An Operator missing
 * while components of it exist is created (so deleting it while its Subscription exists brings it
 * back). The status is written only when it differs.
 */
export function createOperatorReconciler(shared: Shared): Reconciler {
  const operatorsOf = (object: CachedObject) => operatorNamesIn(object.metadata?.labels).map((name) => ({ name }));
  return {
    name: 'operator',
    for: Kinds.operator,
    watches: componentKinds.map((kind) => ({ ...kind, map: operatorsOf })),
    async reconcile({ name }, { cache }) {
      const client = shared.client();
      const components = listComponents(cache, name);
      const desired = operatorComponents(name, components);
      let operator = cache.get(Kinds.operator, name);
      if (!operator) {
        if (components.length === 0 || invalidOperatorName(name) || !(await hasLiveComponent(client, name, components))) return;
        try {
          operator = await client.create<OperatorObject>({ ...Kinds.operator, metadata: { name } }, { fieldManager });
        } catch (error) {
          if (!isAlreadyExists(error)) throw error;
        }
      } else if (operator.metadata.deletionTimestamp || isDeepStrictEqual(operator.status?.components, desired)) {
        return;
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
    },
  };
}

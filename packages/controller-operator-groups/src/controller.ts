import type { KubeClient, Logger, RbacGenerator, Reconciler } from '@olm/core';
import { EventRecorder } from '@olm/controller-runtime';
import { createOperatorGroupReconciler } from './operator-group-reconciler.js';

export interface OperatorGroupsControllerOptions {
  /** The client the reconciler writes with. */
  readonly client: KubeClient;
  readonly rbacGenerator: RbacGenerator;
  readonly logger?: Logger;
  /** The clock of `status.lastUpdated` and condition times. */
  readonly clock?: () => Date;
  /** `source.component` of the Events. Default `olm-operator`. */
  readonly eventComponent?: string;
}

export interface OperatorGroupsController {
  /** The `operatorgroup` reconciler, for `manager.add` or the `reconcilers` point. */
  readonly reconcilers: readonly Reconciler[];
  readonly operatorGroupReconciler: Reconciler;
}

/** The OperatorGroup reconciler, as a library: add it to a controller-runtime `Manager`. */
export function createOperatorGroupsController(options: OperatorGroupsControllerOptions): OperatorGroupsController {
  let recorder: EventRecorder | undefined;
  const operatorGroupReconciler = createOperatorGroupReconciler({
    client: () => options.client,
    rbac: () => options.rbacGenerator,
    recorder: () => (recorder ??= new EventRecorder({ client: options.client, component: options.eventComponent ?? 'olm-operator', logger: options.logger })),
    now: options.clock ?? (() => new Date()),
  });
  return { reconcilers: [operatorGroupReconciler], operatorGroupReconciler };
}

import { createRbacGenerator } from '@olm/plugin-rbac';
import { startReconcilers, startTestCluster } from '@olm/testing';
import { afterAll, beforeAll } from 'vitest';
import { createOperatorGroupsController } from '../src/controller.js';

export { createNamespace, eventually, operatorGroup } from '@olm/testing';

/** A local API server with OLM's CRDs, and the OperatorGroup reconciler alone on a manager against it. */
export async function startHarness() {
  const cluster = await startTestCluster();
  const running = await startReconcilers({
    kubeconfig: cluster.server.kubeconfig,
    controller: (client) => createOperatorGroupsController({ client, rbacGenerator: createRbacGenerator() }),
    manager: { resyncPeriodMs: 0 },
  });
  return {
    client: cluster.client,
    async stop() {
      await running.stop();
      await cluster.stop();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** One harness for a test file. */
export function useHarness(): { readonly current: Harness } {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.stop();
  });
  return {
    get current() {
      if (!harness) throw new Error('the test harness has not started');
      return harness;
    },
  };
}

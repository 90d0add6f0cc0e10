import type { KubeClient } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegistryServer } from '@olm/registry';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { createOperatorNamespace, eventually, grpcCatalogSource, startCluster, startController, startRegistry, subscription } from './helpers.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let registry: RegistryServer;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  registry = await startRegistry();
  await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
});
afterAll(async () => {
  await registry?.stop();
  await cluster?.stop();
});

type PlanStep = { resolving: string; resource: { kind: string; name: string }; status: string };
const stepsOf = (plan: AnyObject | undefined) => ((plan?.status as { plan?: PlanStep[] } | undefined)?.plan ?? []);

describe('a controller stopped in the middle of an InstallPlan', () => {
  it('leaves the plan Installing with the steps done so far, and a new controller finishes it without duplicates', async () => {
    let reached!: () => void;
    const halfway = new Promise<void>((resolve) => (reached = resolve));
    let blocked = false;
    const first = await startController(cluster.server, client, {
      // Stop after the third step: wait until the manager shuts down.
      onStepApplied: async ({ index, signal }) => {
        if (index !== 2 || blocked) return;
        blocked = true;
        reached();
        await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve())));
      },
    });
    await createOperatorNamespace(client, 'restart');
    await client.create(subscription('restart', 'acme-backup', {}));
    await halfway;
    await first.stop();

    const [interrupted, ...others] = (await client.list<AnyObject>(Kinds.installPlan, { namespace: 'restart' })).items;
    expect(others).toEqual([]);
    expect((interrupted!.status as { phase: string }).phase).toBe('Installing');
    const statuses = stepsOf(interrupted).map((step) => step.status);
    expect(statuses.slice(0, 3).every((status) => status !== 'Unknown')).toBe(true);
    expect(statuses.slice(3).every((status) => status === 'Unknown')).toBe(true);

    const firstCsv = stepsOf(interrupted)[0]!.resource.name;
    const firstCsvUid = (await client.get({ ...Kinds.clusterServiceVersion, namespace: 'restart', name: firstCsv })).metadata?.uid;
    const second = await startController(cluster.server, client);
    try {
      const done = await eventually(async () => {
        const plan = await client.get<AnyObject>({ ...Kinds.installPlan, namespace: 'restart', name: interrupted!.metadata!.name! });
        return (plan.status as { phase?: string }).phase === 'Complete' && plan;
      });
      const steps = stepsOf(done);
      // what was created before the stop was not created again
      expect((await client.get({ ...Kinds.clusterServiceVersion, namespace: 'restart', name: firstCsv })).metadata?.uid).toBe(firstCsvUid);
      expect(steps[0]!.status).toBe('Created');
      expect(steps.every((step) => step.status === 'Created' || step.status === 'Present')).toBe(true);
      expect((await client.list(Kinds.installPlan, { namespace: 'restart' })).items).toHaveLength(1);
      const csvs = (await client.list<AnyObject>(Kinds.clusterServiceVersion, { namespace: 'restart' })).items.map((csv) => csv.metadata?.name).sort();
      expect(csvs).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);
      const owned = (await client.list<AnyObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' })).items.filter(
        (role) => role.metadata?.labels?.['olm.owner.namespace'] === 'restart',
      );
      expect(owned).toHaveLength(steps.filter((step) => step.resource.kind === 'ClusterRole').length);
    } finally {
      await second.stop();
    }
  });
});

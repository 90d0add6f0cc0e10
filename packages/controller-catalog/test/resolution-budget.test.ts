import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '@olm/controller-runtime';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import type { RegistryServer } from '@olm/registry';
import { builtInConstraintEvaluators, createResolver, type Resolver } from '@olm/resolver';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { writeCatalog, type PackageSpec } from './fbc-catalog.js';
import {
  condition,
  createOperatorNamespace,
  eventually,
  get,
  grpcCatalogSource,
  list,
  startCluster,
  startController,
  startRegistry,
  subscription,
} from './helpers.js';

// Issue 15, item 3: 300 distinct CEL rules, each within plugin-cel's per-rule limits, made one
// resolution run for a minute on the event loop, so every other namespace (and an in-process API
// server) waited. Resolution now has a budget, and runs in slices that let everything else go on.

const fifty = `[${Array.from({ length: 50 }, (_, index) => index).join(', ')}]`;
const rule = (index: number) =>
  `properties.exists(p, p.type == "olm.gvk" && p.value.kind == "Kind${index}") || ${fifty}.exists(a, ${fifty}.exists(b, a * b == ${100_000 + index}))`;

/** `hostile.v1` with 300 distinct rules, and `fillers` packages for every rule to be tested on. */
function hostilePackages(fillers: number): PackageSpec[] {
  return [
    {
      name: 'hostile',
      defaultChannel: 'stable',
      channels: { stable: [{ name: 'hostile.v1' }] },
      bundles: [
        {
          name: 'hostile.v1',
          version: '1.0.0',
          properties: Array.from({ length: 300 }, (_, index) => ({
            type: 'olm.constraint',
            value: { failureMessage: `rule ${index} wants a Kind${index} provider`, cel: { rule: rule(index) } },
          })),
        },
      ],
    },
    ...Array.from({ length: fillers }, (_, index): PackageSpec => ({
      name: `filler${index}`,
      defaultChannel: 'stable',
      channels: { stable: [{ name: `filler${index}.v1` }] },
      bundles: [{ name: `filler${index}.v1`, version: '1.0.0', provides: [{ group: 'fillers.example.com', version: 'v1', kind: `Filler${index}` }] }],
    })),
  ];
}

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let registry: RegistryServer;
let controller: Awaited<ReturnType<typeof startController>> | undefined;
const directory = mkdtempSync(join(tmpdir(), 'olm-resolution-budget-'));

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  registry = await startRegistry();
  await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
});
afterEach(async () => {
  await controller?.stop();
  controller = undefined;
});
afterAll(async () => {
  await registry?.stop();
  await cluster?.stop();
  rmSync(directory, { recursive: true, force: true });
});

/** A namespace with its own fbc-directory CatalogSource `hostile` and a Subscription to hostile.v1. */
async function subscribeToHostile(namespace: string, fillers: number): Promise<void> {
  writeCatalog(join(directory, namespace), hostilePackages(fillers));
  await createOperatorNamespace(client, namespace);
  await client.create({ ...Kinds.catalogSource, metadata: { name: 'hostile', namespace }, spec: { sourceType: 'fbc-directory', address: join(directory, namespace) } });
  await client.create(subscription(namespace, 'hostile', { source: 'hostile', sourceNamespace: namespace }));
}

describe('a resolution past its budget', () => {
  it('fails the namespace with ResolutionFailed naming the bundle and a rule', async () => {
    controller = await startController(cluster.server, client);
    await subscribeToHostile('greedy', 60);
    const failed = await eventually(
      async () => {
        const found = await get(client, Kinds.subscription, 'greedy', 'hostile');
        return condition(found, 'ResolutionFailed')?.message?.startsWith('resolution stopped') && found;
      },
      { timeoutMs: 60_000, message: 'the budget error on the Subscription' },
    );
    const resolutionFailed = condition(failed, 'ResolutionFailed')!;
    expect(resolutionFailed).toMatchObject({ status: 'True', reason: 'ErrorPreventedResolution' });
    expect(resolutionFailed.message).toMatch(
      /^resolution stopped: evaluating constraints used up the budget of 50000000 units: bundle hostile\.v1 \(catalogsource greedy\/hostile\) spent \d+ of them on \d+ constraints/,
    );
    expect(resolutionFailed.message).toMatch(/with constraint: "properties\.exists\(p, p\.type == \\"olm\.gvk\\" && p\.value\.kind == \\"Kind\d+\\"\)/);
    expect(resolutionFailed.message).toMatch(/and message: "rule \d+ wants a Kind\d+ provider"/);
    expect(resolutionFailed.message).toContain('raise the resolution budget');
    expect(await list(client, Kinds.installPlan, 'greedy')).toEqual([]);
    // Gone, so that the next test's controller does not spend a worker on it.
    await client.delete({ ...Kinds.subscription, namespace: 'greedy', name: 'hostile' });
  }, 90_000);
});

describe('a costly resolution in one namespace', () => {
  it('does not starve another namespace, nor the API server in the same process', async () => {
    // No budget to speak of: the hostile resolution runs for a minute or more, in slices.
    const resolver = createResolver({
      satBackend: createLogicSolverBackend(),
      constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()],
      limits: { evaluationUnits: Number.MAX_SAFE_INTEGER },
    });
    const resolving = new Set<string>();
    const observed: Resolver = {
      resolve: (input) => resolver.resolve(input),
      async resolveInSlices(input, options) {
        resolving.add(input.namespace);
        try {
          return await resolver.resolveInSlices(input, options);
        } finally {
          resolving.delete(input.namespace);
        }
      },
    };
    controller = await startController(cluster.server, client, { resolver: observed });
    await subscribeToHostile('hoarding', 300);
    await eventually(() => resolving.has('hoarding'), { timeoutMs: 30_000, message: 'the hostile resolution to start' });

    await createOperatorNamespace(client, 'bystander');
    await client.create(subscription('bystander', 'acme-database', {}));
    const plan = await eventually(
      async () => {
        const plans = await list(client, Kinds.installPlan, 'bystander');
        return plans.length === 1 && (plans[0]!.status as { phase?: string } | undefined)?.phase === 'Complete' && plans[0];
      },
      { timeoutMs: 30_000, message: "the bystander's InstallPlan to complete" },
    );
    expect((plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames).toEqual(['acme-database.v1.2.0']);
    expect(await get(client, Kinds.clusterServiceVersion, 'bystander', 'acme-database.v1.2.0')).toBeDefined();
    // A client of its own gets answers from the API server while the hostile resolution still runs.
    const other = new KubeClient({ kubeconfig: cluster.server.kubeconfig, requestTimeoutMs: 5_000 });
    try {
      const namespaces = await other.list<AnyObject>({ apiVersion: 'v1', kind: 'Namespace' });
      expect(namespaces.items.map((namespace) => namespace.metadata?.name)).toContain('hoarding');
    } finally {
      other.close();
    }
    expect(resolving.has('hoarding')).toBe(true);
    const hostile = await get(client, Kinds.subscription, 'hoarding', 'hostile');
    expect(condition(hostile, 'ResolutionFailed')).toBeUndefined();
    // Stopping the manager (afterEach) aborts the hostile resolution at its next pause.
  }, 90_000);
});

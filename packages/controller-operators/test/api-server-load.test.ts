import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, Kinds, olmUser, sleep, startHarness, subscriptionManifest } from './helpers.js';

type Json = Record<string, any>;
const resyncPeriodMs = 200;
let harness: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  harness = await startHarness({ resyncPeriodMs });
});
afterAll(async () => {
  await harness?.stop();
});

/** Operators `pkg-<i>.load-<i>` for i in [from, to): a namespace, a Subscription and a labelled Secret each. */
async function installOperators(from: number, to: number): Promise<void> {
  const { client } = harness;
  for (let index = from; index < to; index += 1) {
    const namespace = `load-${index}`;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await client.create(subscriptionManifest(namespace, 'sub', `pkg-${index}`));
    await client.create({ ...Kinds.secret, metadata: { namespace, name: 'cert', labels: { [`operators.coreos.com/pkg-${index}.${namespace}`]: '' } } });
  }
  await eventually(
    async () => {
      for (let index = from; index < to; index += 1) {
        const operator = await harness.client.find<Json>({ ...Kinds.operator, name: `pkg-${index}.load-${index}` });
        const refs = ((operator?.status?.components?.refs ?? []) as Json[]).map((ref) => ref.kind);
        if (!refs.includes('Subscription') || !refs.includes('Secret')) return false;
      }
      return true;
    },
    { message: `Operators ${from}..${to - 1} with their Subscription and Secret`, timeoutMs: 20_000 },
  );
}

async function operatorReconciles(): Promise<number> {
  const metric = await harness.manager.metrics.reconcileTotal.get();
  return metric.values.filter((value) => value.labels.controller === 'operator').reduce((sum, value) => sum + value.value, 0);
}

/** OLM's requests (by verb and resource) and the Operator reconciles over five resync periods of a settled cluster. */
async function steadyStateWindow() {
  await sleep(2 * resyncPeriodMs); // let writes of the convergence settle
  const start = harness.served.length;
  const reconcilesBefore = await operatorReconciles();
  await sleep(5 * resyncPeriodMs);
  const requests = harness.served.slice(start).filter((request) => request.user === olmUser);
  return {
    lists: requests.filter((request) => request.verb === 'list').map((request) => `${request.resource}?${request.query}`),
    others: requests.filter((request) => request.verb !== 'list' && request.verb !== 'watch').map((request) => `${request.verb} ${request.resource}/${request.name}`),
    reconciles: (await operatorReconciles()) - reconcilesBefore,
  };
}

describe('the load the Operator API puts on the API server', () => {
  it('makes no LIST (nor any other request) in a steady state, with 1 Operator as with 20, although it reconciles each on every resync', async () => {
    await installOperators(0, 1);
    const one = await steadyStateWindow();
    await installOperators(1, 20);
    const twenty = await steadyStateWindow();

    // The window saw every Operator reconciled several times: the requests below were not avoided by idling.
    expect(one.reconciles).toBeGreaterThanOrEqual(3);
    expect(twenty.reconciles).toBeGreaterThanOrEqual(3 * 20);
    expect(one.lists).toEqual([]);
    expect(twenty.lists).toEqual([]);
    expect(one.others).toEqual([]);
    expect(twenty.others).toEqual([]);
  });

  it('makes a deleted Operator again after asking the API server for one of its components, not listing every kind', async () => {
    const start = harness.served.length;
    const first = (await harness.client.find<Json>({ ...Kinds.operator, name: 'pkg-3.load-3' }))!;
    await harness.client.delete({ ...Kinds.operator, name: 'pkg-3.load-3' });
    await eventually(async () => (await harness.client.find<Json>({ ...Kinds.operator, name: 'pkg-3.load-3' }))?.metadata.uid !== first.metadata.uid, { message: 'Operator made again' });
    const requests = harness.served.slice(start).filter((request) => request.user === olmUser && request.verb !== 'watch');
    expect(requests.filter((request) => request.verb === 'list')).toEqual([]);
    // The Subscription, the first component, is found live at once.
    expect(requests.filter((request) => request.verb === 'get').map((request) => `${request.resource}/${request.namespace}/${request.name}`)).toEqual(['subscriptions/load-3/sub']);
  });

  it('lists every component kind once, when its informer starts, never per Operator', () => {
    const lists = harness.served.filter((request) => request.user === olmUser && request.verb === 'list');
    const byResource = new Map<string, number>();
    for (const request of lists) byResource.set(request.resource, (byResource.get(request.resource) ?? 0) + 1);
    for (const resource of ['secrets', 'configmaps', 'services', 'validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
      expect(byResource.get(resource), resource).toBe(1);
    }
    // Metadata only: the lists of those kinds were no label-filtered scans per Operator.
    expect(lists.filter((request) => request.query.includes('labelSelector'))).toEqual([]);
  });
});

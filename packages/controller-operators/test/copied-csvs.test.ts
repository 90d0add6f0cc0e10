import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvManifest, eventually, Kinds, startHarness } from './helpers.js';

let harness: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.stop();
});

async function queueAdds(queue: string): Promise<number> {
  const text = await harness.manager.metrics.registry.metrics();
  return Number(new RegExp(`^workqueue_adds_total\\{name="${queue}"[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 'NaN');
}

describe('copied CSVs', () => {
  it('queue no CSV adoption: a copy is never adopted, and there is one per namespace and AllNamespaces operator', async () => {
    const { client } = harness;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'copies-src' } });
    await client.create({ ...csvManifest('copies-src', 'source.v1'), metadata: { namespace: 'copies-src', name: 'source.v1', labels: { 'operators.coreos.com/source.copies-src': '' } } });
    await eventually(async () => (await queueAdds('adoption-csv')) >= 1, { message: 'the source CSV queued' });
    const before = await queueAdds('adoption-csv');
    for (let index = 0; index < 20; index += 1) {
      const namespace = `copies-${index}`;
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      await client.create({ ...csvManifest(namespace, 'source.v1'), metadata: { namespace, name: 'source.v1', labels: { 'olm.copiedFrom': 'copies-src' } } });
    }
    // A CSV created after the copies is queued: the copies' events were seen (the informer is in order) and queued nothing.
    await client.create(csvManifest('copies-src', 'marker.v1'));
    await eventually(async () => (await queueAdds('adoption-csv')) > before, { message: 'the marker CSV queued' });
    expect((await queueAdds('adoption-csv')) - before).toBe(1);
    expect(await client.find({ ...Kinds.clusterServiceVersion, namespace: 'copies-19', name: 'source.v1' })).toBeDefined();
  });
});

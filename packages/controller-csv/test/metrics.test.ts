import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import { createNamespace, createOperatorGroup, crdManifest, csv, eventually, getCsv, groupSynced, useController, waitForPhase } from './helpers.js';

const harness = useController();

interface Series {
  readonly labels: Record<string, string | number>;
  readonly value: number;
}

const series = async (name: string): Promise<Series[]> => {
  const metric = harness.controller.registry.getSingleMetric(name);
  return metric ? ((await metric.get()).values as Series[]) : [];
};
const ofCsv = (list: Series[], name: string) => list.filter((item) => item.labels.name === name);

describe('olm-operator metrics', () => {
  it('csv_count counts CSVs but not their copies', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'm-op');
    await createNamespace(client, 'm-target');
    await createOperatorGroup(client, 'm-op', 'og', { targetNamespaces: ['m-target'] });
    await groupSynced(client, 'm-op', 'og');
    await client.create(csv({ namespace: 'm-op', name: 'first.v1', deployments: ['first'] }));
    await client.create(csv({ namespace: 'm-op', name: 'second.v1', deployments: ['second'] }));
    await waitForPhase(client, 'm-op', 'first.v1', 'Succeeded');
    await waitForPhase(client, 'm-op', 'second.v1', 'Succeeded');
    await eventually(() => getCsv(client, 'm-target', 'second.v1'), { message: 'copy made' });
    await eventually(async () => (await series('csv_count'))[0]?.value === 2, { message: 'csv_count 2 (copies ignored)' });
    expect((await series('csv_count'))[0]?.labels).toEqual({});

    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'm-op', name: 'first.v1' });
    await eventually(async () => (await series('csv_count'))[0]?.value === 1, { message: 'csv_count 1 after a delete' });
    // The deleted CSV's series are gone.
    await eventually(async () => ofCsv(await series('csv_succeeded'), 'first.v1').length === 0, { message: 'csv_succeeded series removed' });
  });

  it('csv_succeeded and csv_abnormal follow the phase with upstream labels; the abnormal series goes when normal', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'm-phase');
    await createOperatorGroup(client, 'm-phase', 'og');
    await groupSynced(client, 'm-phase', 'og');
    await client.create(csv({ namespace: 'm-phase', name: 'crd.v1', version: '1.2.3', requiredCrds: [{ name: 'metered.example.com', version: 'v1', kind: 'Metered' }] }));
    await waitForPhase(client, 'm-phase', 'crd.v1', 'Pending', 'RequirementsNotMet');
    const abnormal = await eventually(async () => {
      const items = ofCsv(await series('csv_abnormal'), 'crd.v1');
      return items.length === 1 && items[0]!.labels.reason === 'RequirementsNotMet' ? items : undefined;
    }, { message: 'abnormal while waiting' });
    // One series per CSV: the earlier phase's (Pending/RequirementsUnknown) was removed when it moved on.
    expect(abnormal).toEqual([{ labels: { namespace: 'm-phase', name: 'crd.v1', version: '1.2.3', phase: 'Pending', reason: 'RequirementsNotMet' }, value: 1 }]);
    expect(ofCsv(await series('csv_succeeded'), 'crd.v1')).toEqual([{ labels: { namespace: 'm-phase', name: 'crd.v1', version: '1.2.3' }, value: 0 }]);

    await client.create(crdManifest('metered', 'example.com', 'Metered'));
    await waitForPhase(client, 'm-phase', 'crd.v1', 'Succeeded');
    await eventually(async () => ofCsv(await series('csv_abnormal'), 'crd.v1').length === 0 && ofCsv(await series('csv_succeeded'), 'crd.v1')[0]?.value === 1, {
      message: 'abnormal series removed, succeeded 1',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import {
  crdManifest,
  createNamespace,
  createOperatorGroup,
  csv,
  eventually,
  getCsv,
  groupSynced,
  listAll,
  startController,
  startEnvironment,
  useController,
  waitForPhase,
  type CsvObject,
} from './helpers.js';

const harness = useController();

const copiesOf = (namespace: string, name: string) =>
  listAll<CsvObject>(harness.env.client, Kinds.csv, `olm.copiedFrom=${namespace}`).then((items) => items.filter((item) => item.metadata?.name === name));

/** The copy in `namespace` once its status shows `phase` (always with reason Copied). */
const copyInPhase = (namespace: string, name: string, phase: string) =>
  eventually(async () => {
    const copy = await getCsv(harness.env.client, namespace, name);
    return copy?.status?.phase === phase && copy.status.reason === 'Copied' ? copy : undefined;
  }, { message: `copy ${namespace}/${name} ${phase}` });

describe('copied CSVs', () => {
  it('copies a member CSV into every target namespace, and the copies follow its spec and status', async () => {
    const { client } = harness.env;
    for (const namespace of ['copy-op', 'copy-a', 'copy-b', 'copy-elsewhere']) await createNamespace(client, namespace);
    await createOperatorGroup(client, 'copy-op', 'og', { targetNamespaces: ['copy-a', 'copy-b'] });
    await groupSynced(client, 'copy-op', 'og');
    await client.create(crdManifest('copythings', 'example.com', 'CopyThing'));
    await client.create(
      csv({ namespace: 'copy-op', name: 'copied.v1', ownedCrds: [{ name: 'copythings.example.com', version: 'v1', kind: 'CopyThing' }], description: 'first' }),
    );
    const source = await waitForPhase(client, 'copy-op', 'copied.v1', 'Succeeded');

    for (const namespace of ['copy-a', 'copy-b']) {
      const copy = await copyInPhase(namespace, 'copied.v1', 'Succeeded');
      expect(copy.status?.message).toBe('The operator is running in copy-op but is managing this namespace');
      expect(copy.metadata?.labels?.['olm.copiedFrom']).toBe('copy-op');
      expect(copy.metadata?.annotations).toMatchObject({ 'olm.operatorGroup': 'og', 'olm.operatorNamespace': 'copy-op' });
      expect(copy.metadata?.annotations?.['olm.targetNamespaces']).toBeUndefined();
      expect(copy.spec).toEqual(source.spec);
      // A copy is never transitioned, and nothing is installed for it.
      expect(copy.metadata?.finalizers ?? []).toEqual([]);
      expect(await client.find({ ...Kinds.deployment, namespace, name: 'copied.v1-operator' })).toBeUndefined();
    }
    // Only target namespaces get one (the operator namespace keeps the source).
    expect((await copiesOf('copy-op', 'copied.v1')).map((copy) => copy.metadata?.namespace).sort()).toEqual(['copy-a', 'copy-b']);

    // The source's spec changes: the copies follow.
    await client.patch({ ...Kinds.csv, namespace: 'copy-op', name: 'copied.v1' }, { spec: { description: 'second' } });
    await eventually(async () => {
      const copies = await copiesOf('copy-op', 'copied.v1');
      return copies.length === 2 && copies.every((copy) => (copy.spec as { description?: string }).description === 'second');
    }, { message: 'copies follow the spec' });

    // The source's status changes (its CRD goes, so it waits in Pending): the copies follow, still Copied.
    await client.delete({ ...Kinds.crd, name: 'copythings.example.com' });
    await waitForPhase(client, 'copy-op', 'copied.v1', 'Pending', 'RequirementsNotMet');
    await copyInPhase('copy-a', 'copied.v1', 'Pending');
    await copyInPhase('copy-b', 'copied.v1', 'Pending');
    await eventually(async () => !(await client.find({ ...Kinds.crd, name: 'copythings.example.com' })), { message: 'CRD deleted' });
    await client.create(crdManifest('copythings', 'example.com', 'CopyThing'));
    await waitForPhase(client, 'copy-op', 'copied.v1', 'Succeeded');
    await copyInPhase('copy-a', 'copied.v1', 'Succeeded');

    // A copy deleted by hand comes back.
    await client.delete({ ...Kinds.csv, namespace: 'copy-a', name: 'copied.v1' });
    await copyInPhase('copy-a', 'copied.v1', 'Succeeded');

    // A namespace no longer targeted loses its copy; the other keeps it.
    await client.patch({ ...Kinds.operatorGroup, namespace: 'copy-op', name: 'og' }, { spec: { targetNamespaces: ['copy-a'] } });
    await eventually(async () => !(await getCsv(client, 'copy-b', 'copied.v1')), { message: 'copy in copy-b removed' });
    expect(await getCsv(client, 'copy-a', 'copied.v1')).toBeDefined();
    expect(await getCsv(client, 'copy-elsewhere', 'copied.v1')).toBeUndefined();

    // The source goes: so do its copies.
    await client.delete({ ...Kinds.csv, namespace: 'copy-op', name: 'copied.v1' });
    await eventually(async () => (await copiesOf('copy-op', 'copied.v1')).length === 0, { message: 'copies removed with the source' });
  });

  it('copies an AllNamespaces CSV into every other namespace, including ones created later', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'copy-all');
    await createNamespace(client, 'copy-all-before');
    await createOperatorGroup(client, 'copy-all', 'og', {});
    await groupSynced(client, 'copy-all', 'og');
    await client.create(csv({ namespace: 'copy-all', name: 'everywhere.v1' }));
    await waitForPhase(client, 'copy-all', 'everywhere.v1', 'Succeeded');
    await copyInPhase('copy-all-before', 'everywhere.v1', 'Succeeded');
    await createNamespace(client, 'copy-all-after');
    await copyInPhase('copy-all-after', 'everywhere.v1', 'Succeeded');
    expect(await getCsv(client, 'copy-all', 'everywhere.v1')).toMatchObject({ metadata: { annotations: { 'olm.targetNamespaces': '' } } });
    // Copies do not count as CSVs in the metrics.
    const namespaces = (await client.list(Kinds.namespace)).items.length;
    expect((await copiesOf('copy-all', 'everywhere.v1')).length).toBe(namespaces - 1);
    expect(await harness.controller.registry.metrics()).not.toMatch(/csv_succeeded\{namespace="copy-all-after"/);
  });
});

describe('disableCopiedCsvsForAllNamespaces', () => {
  it('makes no copies of AllNamespaces operators, and still copies the others', async () => {
    const local = await startEnvironment();
    const disabled = await startController(local, { disableCopiedCsvsForAllNamespaces: true });
    try {
      const { client } = local;
      for (const namespace of ['dis-all', 'dis-multi', 'dis-target']) await createNamespace(client, namespace);
      await createOperatorGroup(client, 'dis-all', 'og', {});
      await createOperatorGroup(client, 'dis-multi', 'og', { targetNamespaces: ['dis-target'] });
      await groupSynced(client, 'dis-all', 'og');
      await groupSynced(client, 'dis-multi', 'og');
      await client.create(csv({ namespace: 'dis-all', name: 'global.v1' }));
      await client.create(csv({ namespace: 'dis-multi', name: 'scoped.v1' }));
      await waitForPhase(client, 'dis-multi', 'scoped.v1', 'Succeeded');
      await eventually(() => getCsv(client, 'dis-target', 'scoped.v1'), { message: 'copy of the MultiNamespace operator' });
      // Copies are made from the first sync after Pending, long before Succeeded: none were made.
      await waitForPhase(client, 'dis-all', 'global.v1', 'Succeeded');
      expect((await listAll(client, Kinds.csv, 'olm.copiedFrom=dis-all')).map((copy) => copy.metadata?.namespace)).toEqual([]);
    } finally {
      await disabled.stop();
      await local.stop();
    }
  });

  it('removes the copies an earlier run made once it is turned on, and keeps the others', async () => {
    const local = await startEnvironment();
    let running = await startController(local);
    try {
      const { client } = local;
      for (const namespace of ['on-all', 'on-multi', 'on-target']) await createNamespace(client, namespace);
      await createOperatorGroup(client, 'on-all', 'og', {});
      await createOperatorGroup(client, 'on-multi', 'og', { targetNamespaces: ['on-target'] });
      await groupSynced(client, 'on-all', 'og');
      await groupSynced(client, 'on-multi', 'og');
      await client.create(csv({ namespace: 'on-all', name: 'global.v1' }));
      await client.create(csv({ namespace: 'on-multi', name: 'scoped.v1' }));
      await waitForPhase(client, 'on-all', 'global.v1', 'Succeeded');
      await eventually(() => getCsv(client, 'on-target', 'global.v1'), { message: 'copy of the AllNamespaces operator' });
      await eventually(() => getCsv(client, 'on-target', 'scoped.v1'), { message: 'copy of the MultiNamespace operator' });

      // The next OLM runs with copies of AllNamespaces operators disabled.
      await running.stop();
      running = await startController(local, { disableCopiedCsvsForAllNamespaces: true });
      await eventually(async () => (await listAll(client, Kinds.csv, 'olm.copiedFrom=on-all')).length === 0, { message: 'AllNamespaces copies removed' });
      expect(await getCsv(client, 'on-target', 'scoped.v1')).toMatchObject({ status: { reason: 'Copied' } });
      expect((await getCsv(client, 'on-all', 'global.v1'))?.status?.phase).toBe('Succeeded');
    } finally {
      await running.stop();
      await local.stop();
    }
  });
});

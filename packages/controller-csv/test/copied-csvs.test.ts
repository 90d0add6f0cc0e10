import type { CachedObject } from '@olm/core';
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
  listEvents,
  sleep,
  startController,
  startEnvironment,
  useController,
  waitForPhase,
  type CsvObject,
} from './helpers.js';

const harness = useController();

const copiesOf = (namespace: string, name: string) =>
  listAll<CsvObject>(harness.env.client, Kinds.clusterServiceVersion, `olm.copiedFrom=${namespace}`).then((items) => items.filter((item) => item.metadata?.name === name));

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
    await client.patch({ ...Kinds.clusterServiceVersion, namespace: 'copy-op', name: 'copied.v1' }, { spec: { description: 'second' } });
    await eventually(async () => {
      const copies = await copiesOf('copy-op', 'copied.v1');
      return copies.length === 2 && copies.every((copy) => (copy.spec as { description?: string }).description === 'second');
    }, { message: 'copies follow the spec' });

    // The source's status changes (its CRD goes, so it waits in Pending): the copies follow, still Copied.
    await client.delete({ ...Kinds.customResourceDefinition, name: 'copythings.example.com' });
    await waitForPhase(client, 'copy-op', 'copied.v1', 'Pending', 'RequirementsNotMet');
    await copyInPhase('copy-a', 'copied.v1', 'Pending');
    await copyInPhase('copy-b', 'copied.v1', 'Pending');
    await eventually(async () => !(await client.find({ ...Kinds.customResourceDefinition, name: 'copythings.example.com' })), { message: 'CRD deleted' });
    await client.create(crdManifest('copythings', 'example.com', 'CopyThing'));
    await waitForPhase(client, 'copy-op', 'copied.v1', 'Succeeded');
    await copyInPhase('copy-a', 'copied.v1', 'Succeeded');

    // A copy carries the hashes of what it was copied from; one whose hash does not match is written again.
    const current = await getCsv(client, 'copy-b', 'copied.v1');
    const hashes = { nonStatus: current?.metadata?.annotations?.['olm.operatorframework.io/nonStatusCopyHash'], status: current?.metadata?.annotations?.['olm.operatorframework.io/statusCopyHash'] };
    expect(hashes.nonStatus).toMatch(/^[0-9a-zA-Z]+$/);
    expect(hashes.status).toMatch(/^[0-9a-zA-Z]+$/);
    await client.patch({ ...Kinds.clusterServiceVersion, namespace: 'copy-b', name: 'copied.v1' }, { metadata: { annotations: { 'olm.operatorframework.io/nonStatusCopyHash': 'tampered' } } });
    await eventually(async () => (await getCsv(client, 'copy-b', 'copied.v1'))?.metadata?.annotations?.['olm.operatorframework.io/nonStatusCopyHash'] === hashes.nonStatus, {
      message: 'the copy is written again',
    });

    // A copy deleted by hand comes back.
    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'copy-a', name: 'copied.v1' });
    await copyInPhase('copy-a', 'copied.v1', 'Succeeded');

    // A namespace no longer targeted loses its copy; the other keeps it.
    await client.patch({ ...Kinds.operatorGroup, namespace: 'copy-op', name: 'og' }, { spec: { targetNamespaces: ['copy-a'] } });
    await eventually(async () => !(await getCsv(client, 'copy-b', 'copied.v1')), { message: 'copy in copy-b removed' });
    expect(await getCsv(client, 'copy-a', 'copied.v1')).toBeDefined();
    expect(await getCsv(client, 'copy-elsewhere', 'copied.v1')).toBeUndefined();

    // The source goes: so do its copies.
    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'copy-op', name: 'copied.v1' });
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
    // The controller's cache keeps a copy's metadata only (labels and the hash annotations tell all it needs).
    const cachedCopy = await eventually(() => harness.controller.manager.cache.get(Kinds.clusterServiceVersion, 'everywhere.v1', 'copy-all-after'), { message: 'the copy cached' });
    expect(Object.keys(cachedCopy ?? {})).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(cachedCopy?.metadata?.annotations?.['olm.operatorframework.io/statusCopyHash']).toBeDefined();
    expect(harness.controller.manager.cache.get(Kinds.clusterServiceVersion, 'everywhere.v1', 'copy-all')).toHaveProperty('spec');
    // Copies do not count as CSVs in the metrics.
    const namespaces = (await client.list(Kinds.namespace)).items.length;
    expect((await copiesOf('copy-all', 'everywhere.v1')).length).toBe(namespaces - 1);
    expect(await harness.controller.registry.metrics()).not.toMatch(/csv_succeeded\{namespace="copy-all-after"/);
  });
});

describe('OLMConfig condition at scale', () => {
  it('looks at the copies for the DisabledCopiedCSVs condition once a second at most while they stream in, not once per copy', async () => {
    const { client } = harness.env;
    const conditionChecks = async () =>
      Number(/^controller_runtime_reconcile_total\{controller="olmconfig",result="success"\} (\d+)$/m.exec(await harness.controller.manager.metrics.registry.metrics())?.[1] ?? 'none');
    await createNamespace(client, 'pace-all');
    await createOperatorGroup(client, 'pace-all', 'og', {});
    await groupSynced(client, 'pace-all', 'og');
    await client.create(csv({ namespace: 'pace-all', name: 'paced.v1' }));
    await waitForPhase(client, 'pace-all', 'paced.v1', 'Succeeded');
    const checksBefore = await conditionChecks();
    const startedAt = Date.now();
    // 60 namespaces at once: 60 copies, each created and then given its status (two events or more each).
    await Promise.all(Array.from({ length: 60 }, (_, index) => createNamespace(client, `pace-${index}`)));
    const namespaces = (await client.list(Kinds.namespace)).items.length;
    await eventually(async () => (await copiesOf('pace-all', 'paced.v1')).length === namespaces - 1, { message: 'a copy in every namespace' });
    const seconds = (Date.now() - startedAt) / 1000;
    // One look per second of streaming (plus the one that may be due right away), whatever the number of copy events.
    expect((await conditionChecks()) - checksBefore).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
  });
});

describe('OLMConfig disableCopiedCSVs', () => {
  type OlmConfigObject = CachedObject & { status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string; lastTransitionTime: string }> } };

  it('deletes and stops the copies of AllNamespaces operators except in protected namespaces, and recreates them when turned off', async () => {
    const local = await startEnvironment();
    const running = await startController(local, { protectedCopiedCsvNamespaces: ['cfg-protected', 'cfg-not-there'] });
    try {
      const { client } = local;
      const configReference = { ...Kinds.olmConfig, name: 'cluster' };
      const condition = async () =>
        ((await client.get<OlmConfigObject>(configReference)).status?.conditions ?? []).find((item) => item.type === 'DisabledCopiedCSVs');
      const copyNamespaces = async (namespace: string, name: string) =>
        (await listAll<CsvObject>(client, Kinds.clusterServiceVersion, `olm.copiedFrom=${namespace}`))
          .filter((copy) => copy.metadata?.name === name)
          .map((copy) => copy.metadata?.namespace ?? '')
          .sort();
      const allNamespaces = async () => (await client.list(Kinds.namespace)).items.map((namespace) => namespace.metadata?.name ?? '').sort();
      const copyingDisabledEvents = async () =>
        (await listEvents(client, 'cfg-all', 'global.v1')).filter((event) => event.reason === 'DisabledCopiedCSVs');

      for (const namespace of ['cfg-all', 'cfg-multi', 'cfg-target', 'cfg-own', 'cfg-protected', 'cfg-other']) await createNamespace(client, namespace);
      await createOperatorGroup(client, 'cfg-all', 'og', {});
      await createOperatorGroup(client, 'cfg-multi', 'og', { targetNamespaces: ['cfg-multi', 'cfg-target'] });
      await createOperatorGroup(client, 'cfg-own', 'og', { targetNamespaces: ['cfg-own'] });
      for (const namespace of ['cfg-all', 'cfg-multi', 'cfg-own']) await groupSynced(client, namespace, 'og');
      // Nobody creates the OLMConfig `cluster`: the controller does at start-up, as upstream.
      expect(await eventually(() => client.find(configReference), { message: 'OLMConfig cluster created at start-up' })).toMatchObject({ spec: {} });
      await client.create(csv({ namespace: 'cfg-all', name: 'global.v1' }));
      await client.create(csv({ namespace: 'cfg-multi', name: 'scoped.v1' }));
      await client.create(csv({ namespace: 'cfg-own', name: 'own.v1' }));
      for (const [namespace, name] of [['cfg-all', 'global.v1'], ['cfg-multi', 'scoped.v1'], ['cfg-own', 'own.v1']] as const) {
        await waitForPhase(client, namespace, name, 'Succeeded');
      }

      // Enabled (no disableCopiedCSVs): a copy in every other namespace, and the condition says so.
      const everyOther = (await allNamespaces()).filter((name) => name !== 'cfg-all');
      await eventually(async () => JSON.stringify(await copyNamespaces('cfg-all', 'global.v1')) === JSON.stringify(everyOther), { message: 'copies everywhere' });
      const enabledCondition = await eventually(async () => {
        const current = await condition();
        return current?.message === 'Copied CSVs are enabled and present across the cluster' ? current : undefined;
      }, { message: 'condition with copies enabled' });
      expect(enabledCondition).toMatchObject({ status: 'False', reason: 'CopiedCSVsEnabled' });
      const scopedCopy = await getCsv(client, 'cfg-target', 'scoped.v1');
      expect(scopedCopy?.status?.reason).toBe('Copied');
      expect(await copyingDisabledEvents()).toEqual([]);

      // Disabled: only the protected namespace that exists keeps its copy.
      await client.patch(configReference, { spec: { features: { disableCopiedCSVs: true } } });
      await eventually(async () => JSON.stringify(await copyNamespaces('cfg-all', 'global.v1')) === JSON.stringify(['cfg-protected']), {
        message: 'copies only in the protected namespace',
      });
      const disabledCondition = await eventually(async () => {
        const current = await condition();
        return current?.status === 'True' ? current : undefined;
      }, { message: 'condition with copies disabled' });
      expect(disabledCondition).toMatchObject({
        reason: 'CopiedCSVsDisabled',
        message: 'Copied CSVs are disabled and no unexpected copied CSVs were found for operators installed in AllNamespace mode',
      });
      const [event, ...moreEvents] = await eventually(async () => {
        const events = await copyingDisabledEvents();
        return events.length > 0 ? events : undefined;
      }, { message: 'DisabledCopiedCSVs event' });
      expect(moreEvents).toEqual([]);
      expect(event).toMatchObject({ type: 'Warning', message: 'CSV copying disabled for cfg-all/global.v1' });

      // The other operators' copies are untouched (the same object), and the OwnNamespace one still has none.
      expect((await getCsv(client, 'cfg-target', 'scoped.v1'))?.metadata?.uid).toBe(scopedCopy?.metadata?.uid);
      expect(await copyNamespaces('cfg-own', 'own.v1')).toEqual([]);
      expect((await getCsv(client, 'cfg-all', 'global.v1'))?.status?.phase).toBe('Succeeded');

      // No copies are made for new namespaces, one deleted in a protected namespace comes back, and more
      // syncs of the operator record no second event.
      await createNamespace(client, 'cfg-later');
      await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'cfg-protected', name: 'global.v1' });
      await eventually(() => getCsv(client, 'cfg-protected', 'global.v1'), { message: 'protected copy recreated' });
      await client.patch({ ...Kinds.clusterServiceVersion, namespace: 'cfg-all', name: 'global.v1' }, { metadata: { labels: { poke: 'yes' } } });
      await sleep(300);
      expect(await copyNamespaces('cfg-all', 'global.v1')).toEqual(['cfg-protected']);
      expect((await copyingDisabledEvents()).length).toBe(1);

      // Turned off again: the copies come back everywhere (the new namespace too), the event goes.
      await client.patch(configReference, { spec: { features: { disableCopiedCSVs: false } } });
      const everyOtherNow = (await allNamespaces()).filter((name) => name !== 'cfg-all');
      await eventually(async () => JSON.stringify(await copyNamespaces('cfg-all', 'global.v1')) === JSON.stringify(everyOtherNow), { message: 'copies back everywhere' });
      await eventually(async () => (await condition())?.message === 'Copied CSVs are enabled and present across the cluster', { message: 'condition back to enabled' });
      expect(await condition()).toMatchObject({ status: 'False', reason: 'CopiedCSVsEnabled' });
      await eventually(async () => (await copyingDisabledEvents()).length === 0, { message: 'event removed' });
      expect((await getCsv(client, 'cfg-target', 'scoped.v1'))?.metadata?.uid).toBe(scopedCopy?.metadata?.uid);
    } finally {
      await running.stop();
      await local.stop();
    }
  });

  it('makes no copies of an AllNamespaces operator installed while copies are disabled', async () => {
    const local = await startEnvironment();
    const running = await startController(local);
    try {
      const { client } = local;
      const configReference = { ...Kinds.olmConfig, name: 'cluster' };
      await eventually(() => client.find(configReference), { message: 'OLMConfig cluster created at start-up' });
      await client.patch(configReference, { spec: { features: { disableCopiedCSVs: true } } });
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
      expect((await listAll(client, Kinds.clusterServiceVersion, 'olm.copiedFrom=dis-all')).map((copy) => copy.metadata?.namespace)).toEqual([]);
    } finally {
      await running.stop();
      await local.stop();
    }
  });
});

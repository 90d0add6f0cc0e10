import type { CachedObject } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import { createNamespace, eventually, operatorGroup, useHarness } from './helpers.js';

const harness = useHarness();

const ogKind = Kinds.operatorGroup;
const groupRoles = (namespace: string, name: string) => `olm.owner=${name},olm.owner.namespace=${namespace},olm.owner.kind=OperatorGroup`;

type GroupObject = CachedObject & { status?: { namespaces?: string[] } };
type RoleObject = CachedObject & { aggregationRule?: { clusterRoleSelectors?: Array<{ matchLabels?: Record<string, string> }> } };

describe('the group reconciler alone', () => {
  it('resolves targets from a selector into status.namespaces and namespace labels, following the labels', async () => {
    const { client } = harness.current;
    await createNamespace(client, 'sel-home');
    await createNamespace(client, 'sel-a', { team: 'a' });
    await createNamespace(client, 'sel-b', { team: 'b' });
    const og = await client.create(operatorGroup('sel-home', 'og', { selector: { matchLabels: { team: 'a' } } }));
    const label = `olm.operatorgroup.uid/${og.metadata?.uid}`;
    await eventually(async () => {
      const group = await client.get<GroupObject>({ ...ogKind, namespace: 'sel-home', name: 'og' });
      return group.status?.namespaces?.join(',') === 'sel-a';
    }, { message: 'status.namespaces from the selector' });
    await eventually(async () => (await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'sel-a' })).metadata?.labels?.[label] === '', {
      message: 'target namespace labelled',
    });
    expect((await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'sel-b' })).metadata?.labels?.[label]).toBeUndefined();
    // A namespace that starts matching becomes a target.
    await client.patch({ apiVersion: 'v1', kind: 'Namespace', name: 'sel-b' }, { metadata: { labels: { team: 'a' } } });
    await eventually(async () => {
      const group = await client.get<GroupObject>({ ...ogKind, namespace: 'sel-home', name: 'og' });
      return group.status?.namespaces?.join(',') === 'sel-a,sel-b';
    }, { message: 'selector followed' });
  });

  it('refuses a target list naming "" with an InvalidTargetNamespaces Warning Event, leaving status.namespaces unset', async () => {
    const { client } = harness.current;
    await createNamespace(client, 'bad-targets');
    await client.create(operatorGroup('bad-targets', 'og', { targetNamespaces: ['bad-targets', ''] }));
    const event = await eventually(async () => {
      const events = await client.list<CachedObject & { reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }>(
        { apiVersion: 'v1', kind: 'Event' },
        { namespace: 'bad-targets' },
      );
      return events.items.find((item) => item.reason === 'InvalidTargetNamespaces' && item.involvedObject?.name === 'og');
    }, { message: 'the InvalidTargetNamespaces event' });
    expect(event.type).toBe('Warning');
    expect(event.message).toContain('spec.targetNamespaces must not contain ""');
    expect((await client.get<GroupObject>({ ...ogKind, namespace: 'bad-targets', name: 'og' })).status?.namespaces).toBeUndefined();
  });

  it('makes the three group ClusterRoles aggregating a static group\'s APIs, and removes them and its labels with the group', async () => {
    const { client } = harness.current;
    await createNamespace(client, 'static');
    const og = await client.create(
      operatorGroup('static', 'og', { targetNamespaces: ['static'], staticProvidedAPIs: true }, { 'olm.providedAPIs': 'Thing.v1.example.com' }),
    );
    const label = `olm.operatorgroup.uid/${og.metadata?.uid}`;
    const roles = await eventually(async () => {
      const list = await client.list<RoleObject>(Kinds.clusterRole, { labelSelector: groupRoles('static', 'og') });
      return list.items.length === 3 ? list.items : undefined;
    }, { message: 'three group ClusterRoles' });
    expect(roles.map((role) => role.metadata?.name?.replace(/-[0-9a-zA-Z]+$/, '')).sort()).toEqual(['olm.og.og.admin', 'olm.og.og.edit', 'olm.og.og.view']);
    expect(roles.every((role) => (role.aggregationRule?.clusterRoleSelectors ?? []).length === 1)).toBe(true);
    // A static group's annotation is the group's own: no member CSV prunes it.
    expect((await client.get({ ...ogKind, namespace: 'static', name: 'og' })).metadata?.annotations?.['olm.providedAPIs']).toBe('Thing.v1.example.com');
    await eventually(async () => (await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'static' })).metadata?.labels?.[label] === '', {
      message: 'target namespace labelled',
    });
    await client.delete({ ...ogKind, namespace: 'static', name: 'og' });
    await eventually(async () => (await client.list(Kinds.clusterRole, { labelSelector: groupRoles('static', 'og') })).items.length === 0, {
      message: 'group roles deleted',
    });
    await eventually(async () => (await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'static' })).metadata?.labels?.[label] === undefined, {
      message: 'namespace label removed',
    });
  });
});

describe('the group service account (spec.serviceAccountName)', () => {
  type GroupStatus = {
    namespaces?: string[];
    serviceAccountRef?: Record<string, string>;
    conditions?: Array<{ type: string; status: string; reason: string; message: string; lastTransitionTime?: string }>;
  };
  const statusOf = async (namespace: string) => ((await harness.current.client.get({ ...ogKind, namespace, name: 'og' })) as { status?: GroupStatus }).status;

  it('reports a missing ServiceAccount and stops there, then references it once it exists, and forgets it when unset', async () => {
    const { client } = harness.current;
    await createNamespace(client, 'og-sa');
    await client.create(operatorGroup('og-sa', 'og', { targetNamespaces: ['og-sa'], serviceAccountName: 'installer' }));
    const missing = await eventually(async () => {
      const status = await statusOf('og-sa');
      return status?.conditions?.some((condition) => condition.type === 'OperatorGroupServiceAccount') ? status : undefined;
    }, { message: 'ServiceAccount condition' });
    expect(missing.conditions).toEqual([
      {
        type: 'OperatorGroupServiceAccount',
        status: 'True',
        reason: 'ServiceAccountNotFound',
        message: 'ServiceAccount installer not found',
        lastTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      },
    ]);
    expect(missing.serviceAccountRef).toBeUndefined();
    // As upstream, the group is not synced further (no target namespaces) while the account is missing.
    expect(missing.namespaces).toBeUndefined();

    const account: CachedObject = await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: 'og-sa' } });
    const found = await eventually(async () => {
      const status = await statusOf('og-sa');
      return status?.serviceAccountRef && status.namespaces ? status : undefined;
    }, { message: 'serviceAccountRef' });
    expect(found.serviceAccountRef).toEqual({
      kind: 'ServiceAccount',
      namespace: 'og-sa',
      name: 'installer',
      uid: account.metadata?.uid,
      apiVersion: 'v1',
      resourceVersion: account.metadata?.resourceVersion,
    });
    expect(found.conditions ?? []).toEqual([]);
    expect(found.namespaces).toEqual(['og-sa']);

    // The account goes: the condition is back and the reference goes.
    await client.delete({ ...Kinds.serviceAccount, namespace: 'og-sa', name: 'installer' });
    await eventually(async () => {
      const status = await statusOf('og-sa');
      return !status?.serviceAccountRef && status?.conditions?.some((condition) => condition.reason === 'ServiceAccountNotFound');
    }, { message: 'condition back' });

    // No service account asked for: neither the reference nor the condition.
    await client.patch({ ...ogKind, namespace: 'og-sa', name: 'og' }, { spec: { serviceAccountName: null } });
    await eventually(async () => {
      const status = await statusOf('og-sa');
      return !status?.serviceAccountRef && (status?.conditions ?? []).length === 0;
    }, { message: 'condition removed' });
  });
});

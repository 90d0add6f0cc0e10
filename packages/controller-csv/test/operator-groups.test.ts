import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import {
  createNamespace,
  createOperatorGroup,
  csv,
  eventually,
  getCsv,
  groupSynced,
  useController,
  waitForPhase,
  type CsvObject,
} from './helpers.js';

const harness = useController();

const ogKind = Kinds.operatorGroup;

describe('pre-checks', () => {
  it('fails NoOperatorGroup, then recovers to Pending "InstallModes now support target namespaces" once a group exists', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'no-og');
    await client.create(csv({ namespace: 'no-og', name: 'lonely.v1' }));
    const failed = await waitForPhase(client, 'no-og', 'lonely.v1', 'Failed', 'NoOperatorGroup');
    expect(failed.status?.message).toBe('csv in namespace with no operatorgroups');
    await createOperatorGroup(client, 'no-og', 'og');
    const done = await waitForPhase(client, 'no-og', 'lonely.v1', 'Succeeded');
    expect(done.status?.conditions?.map((condition) => [condition.phase, condition.reason, condition.message])).toContainEqual([
      'Pending',
      'RequirementsUnknown',
      'InstallModes now support target namespaces',
    ]);
  });

  it('fails TooManyOperatorGroups with two groups, and marks both MultipleOperatorGroup', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'two-og');
    await createOperatorGroup(client, 'two-og', 'first');
    await createOperatorGroup(client, 'two-og', 'second');
    await client.create(csv({ namespace: 'two-og', name: 'torn.v1' }));
    const failed = await waitForPhase(client, 'two-og', 'torn.v1', 'Failed', 'TooManyOperatorGroups');
    expect(failed.status?.message).toBe("csv created in namespace with multiple operatorgroups, can't pick one automatically");
    const og = await eventually(async () => {
      const group = await client.get<CsvObject & { status?: { conditions?: Array<Record<string, string>> } }>({ ...ogKind, namespace: 'two-og', name: 'first' });
      return group.status?.conditions?.length ? group : undefined;
    });
    expect(og.status?.conditions?.[0]).toMatchObject({
      type: 'MultipleOperatorGroup',
      status: 'True',
      reason: 'MultipleOperatorGroupsFound',
      message: 'Multiple OperatorGroup found in the same namespace',
    });
    await client.delete({ ...ogKind, namespace: 'two-og', name: 'second' });
    await waitForPhase(client, 'two-og', 'torn.v1', 'Succeeded');
    await eventually(async () => {
      const group = await client.get<CsvObject & { status?: { conditions?: unknown[] } }>({ ...ogKind, namespace: 'two-og', name: 'first' });
      return (group.status?.conditions ?? []).length === 0;
    }, { message: 'condition removed' });
  });

  it('fails NoTargetNamespaces when the selector matches nothing, and follows the selector', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'sel-op');
    await createOperatorGroup(client, 'sel-op', 'og', { selector: { matchLabels: { team: 'blue' } } });
    await client.create(csv({ namespace: 'sel-op', name: 'picky.v1' }));
    // Until the group's status is written the CSV may first fail "csv missing olm.targetNamespaces annotation".
    await eventually(async () => {
      const current = await getCsv(client, 'sel-op', 'picky.v1');
      return current?.status?.reason === 'NoTargetNamespaces' && current.status.message === 'no targetNamespaces are matched operatorgroups namespace selection';
    }, { message: 'NoTargetNamespaces for the empty selection' });
    // It stays failed (the empty target list is not mistaken for all namespaces).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await getCsv(client, 'sel-op', 'picky.v1'))?.status?.phase).toBe('Failed');
    await createNamespace(client, 'sel-blue', { team: 'blue' });
    const done = await waitForPhase(client, 'sel-op', 'picky.v1', 'Succeeded');
    expect(done.metadata?.annotations?.['olm.targetNamespaces']).toBe('sel-blue');
    const og = await client.get<CsvObject>({ ...ogKind, namespace: 'sel-op', name: 'og' });
    expect(og.status?.namespaces).toEqual(['sel-blue']);
    expect((og.status as { lastUpdated?: string }).lastUpdated).toBeTruthy();
    const namespace = await client.get({ ...Kinds.namespace, name: 'sel-blue' });
    expect(namespace.metadata?.labels?.[`olm.operatorgroup.uid/${og.metadata?.uid}`]).toBe('');

    // A second matching namespace: status, CSV annotation and labels follow.
    await createNamespace(client, 'sel-blue-2', { team: 'blue' });
    await eventually(async () => (await getCsv(client, 'sel-op', 'picky.v1'))?.metadata?.annotations?.['olm.targetNamespaces'] === 'sel-blue,sel-blue-2', {
      message: 'annotation follows the selector',
    });
    // The copied CSV in each target namespace (reason Copied, no olm.targetNamespaces).
    const copy = await eventually(() => getCsv(client, 'sel-blue-2', 'picky.v1'), { message: 'copied CSV' });
    expect(copy.metadata?.labels?.['olm.copiedFrom']).toBe('sel-op');
    expect(copy.metadata?.annotations?.['olm.targetNamespaces']).toBeUndefined();
    await eventually(async () => (await getCsv(client, 'sel-blue-2', 'picky.v1'))?.status?.reason === 'Copied');
    expect((await getCsv(client, 'sel-blue-2', 'picky.v1'))?.status?.message).toBe('The operator is running in sel-op but is managing this namespace');

    // Unlabel one: its copy and its group label go.
    await client.patch({ ...Kinds.namespace, name: 'sel-blue-2' }, { metadata: { labels: { team: null } } });
    await eventually(async () => !(await getCsv(client, 'sel-blue-2', 'picky.v1')), { message: 'copy removed' });
    await eventually(async () => {
      const namespace2 = await client.get({ ...Kinds.namespace, name: 'sel-blue-2' });
      return namespace2.metadata?.labels?.[`olm.operatorgroup.uid/${og.metadata?.uid}`] === undefined;
    }, { message: 'group label removed' });
  });

  it('fails InvalidInstallModes on duplicates and UnsupportedOperatorGroup with upstream messages', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'modes');
    await createOperatorGroup(client, 'modes', 'og', {});
    await groupSynced(client, 'modes', 'og');
    await client.create(
      csv({
        namespace: 'modes',
        name: 'dup.v1',
        installModes: [
          { type: 'AllNamespaces', supported: true },
          { type: 'AllNamespaces', supported: false },
        ],
      }),
    );
    const duplicate = await waitForPhase(client, 'modes', 'dup.v1', 'Failed', 'InvalidInstallModes');
    expect(duplicate.status?.message).toBe('InstallMode list contains duplicates, cannot make set: [{AllNamespaces true} {AllNamespaces false}]');

    await client.create(
      csv({ namespace: 'modes', name: 'own.v1', installModes: [{ type: 'OwnNamespace', supported: true }], deployments: ['own'] }),
    );
    const unsupported = await waitForPhase(client, 'modes', 'own.v1', 'Failed', 'UnsupportedOperatorGroup');
    expect(unsupported.status?.message).toBe('AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces');

    // The group narrows to the own namespace: the CSV recovers.
    await client.patch({ ...ogKind, namespace: 'modes', name: 'og' }, { spec: { targetNamespaces: ['modes'] } });
    const recovered = await waitForPhase(client, 'modes', 'own.v1', 'Succeeded');
    expect(recovered.metadata?.annotations?.['olm.targetNamespaces']).toBe('modes');
  });

  it('creates the three OperatorGroup ClusterRoles, aggregating the provided APIs, and puts back edits', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'roles');
    const og = await createOperatorGroup(client, 'roles', 'og');
    const roles = await eventually(async () => {
      const list = await client.list(Kinds.clusterRole, { labelSelector: 'olm.owner=og,olm.owner.namespace=roles,olm.owner.kind=OperatorGroup' });
      return list.items.length === 3 ? list.items : undefined;
    }, { message: 'three group ClusterRoles' });
    expect(roles.map((role) => role.metadata?.name?.replace(/-[0-9a-zA-Z]+$/, '')).sort()).toEqual(['olm.og.og.admin', 'olm.og.og.edit', 'olm.og.og.view']);
    await client.create(csv({ namespace: 'roles', name: 'api.v1', ownedCrds: [{ name: 'things.example.com', version: 'v1', kind: 'Thing' }] }));
    // The group's providedAPIs grows with its member (AddAPIs), and the roles aggregate it.
    await eventually(async () => {
      const group = await client.get({ ...ogKind, namespace: 'roles', name: 'og' });
      return group.metadata?.annotations?.['olm.providedAPIs'] === 'Thing.v1.example.com';
    }, { message: 'providedAPIs' });
    await eventually(async () => {
      const list = await client.list<CsvObject & { aggregationRule?: { clusterRoleSelectors?: unknown[] } }>(Kinds.clusterRole, {
        labelSelector: 'olm.owner=og,olm.owner.namespace=roles,olm.owner.kind=OperatorGroup',
      });
      return list.items.every((role) => (role.aggregationRule?.clusterRoleSelectors ?? []).length === 1);
    }, { message: 'aggregation per API' });
    // Someone edits a role's aggregation: put back, as the cached copy no longer matches.
    const admin = roles.find((role) => role.metadata?.name?.startsWith('olm.og.og.admin'))!;
    await client.patch({ ...Kinds.clusterRole, name: admin.metadata!.name! }, { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { edited: 'true' } }] } });
    await eventually(async () => {
      const live = await client.get<CsvObject & { aggregationRule?: { clusterRoleSelectors?: Array<{ matchLabels?: Record<string, string> }> } }>({
        ...Kinds.clusterRole,
        name: admin.metadata!.name!,
      });
      const selectors = live.aggregationRule?.clusterRoleSelectors ?? [];
      return selectors.length === 1 && selectors[0]?.matchLabels?.edited === undefined;
    }, { message: 'edited aggregation put back' });
    // The group goes: its roles go.
    await client.delete({ ...ogKind, namespace: 'roles', name: og.metadata?.name ?? 'og' });
    await eventually(async () => {
      const list = await client.list(Kinds.clusterRole, { labelSelector: 'olm.owner=og,olm.owner.namespace=roles,olm.owner.kind=OperatorGroup' });
      return list.items.length === 0;
    }, { message: 'group roles deleted' });
  });
});

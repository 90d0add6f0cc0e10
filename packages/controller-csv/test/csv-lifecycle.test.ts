import { CSVCleanupFinalizer } from '@olm/api';
import { describe, expect, it } from 'vitest';
import { fnv64aHex, Kinds } from '../src/kinds.js';
import {
  crdManifest,
  createNamespace,
  createOperatorGroup,
  csv,
  eventually,
  getCsv,
  grantPermissions,
  groupSynced,
  listAll,
  listEvents,
  useController,
  waitForPhase,
  type CsvObject,
  type RbacObject,
} from './helpers.js';

const harness = useController();

describe('CSV happy path', () => {
  it('goes None → Pending → InstallReady → Installing → Succeeded and installs its deployment', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'happy');
    await createOperatorGroup(client, 'happy', 'og');
    await groupSynced(client, 'happy', 'og');
    await client.create(crdManifest('widgets', 'example.com', 'Widget'));
    const manifest = csv({
      namespace: 'happy',
      name: 'widget.v1',
      ownedCrds: [{ name: 'widgets.example.com', version: 'v1', kind: 'Widget' }],
      serviceAccounts: ['operator'],
      minKubeVersion: '1.20.0',
    });
    // The service account and the RBAC its permissions need, as an InstallPlan creates them.
    await grantPermissions(client, manifest);
    await client.create(manifest);
    const done = await waitForPhase(client, 'happy', 'widget.v1', 'Succeeded', 'InstallSucceeded');
    expect(done.status?.message).toBe('install strategy completed with no errors');
    expect(done.metadata?.finalizers).toContain(CSVCleanupFinalizer);
    expect(done.metadata?.annotations).toMatchObject({
      'olm.operatorGroup': 'og',
      'olm.operatorNamespace': 'happy',
      'olm.targetNamespaces': 'happy',
    });
    expect(Object.entries(done.metadata?.labels ?? {}).some(([key, value]) => key.startsWith('olm.api.') && value === 'provided')).toBe(true);
    // An InstallWaiting entry appears when the controller looks before the rollout is available, a
    // RequirementsNotMet one when it looks before its cache has the RBAC created just before the CSV.
    const history = (done.status?.conditions ?? []).filter((condition) => condition.reason !== 'InstallWaiting' && condition.reason !== 'RequirementsNotMet');
    expect(history.map((condition) => [condition.phase, condition.reason, condition.message])).toEqual([
      ['Pending', 'RequirementsUnknown', 'requirements not yet checked'],
      ['InstallReady', 'AllRequirementsMet', 'all requirements found, attempting install'],
      ['Installing', 'InstallSucceeded', 'waiting for install components to report healthy'],
      ['Succeeded', 'InstallSucceeded', 'install strategy completed with no errors'],
    ]);
    const requirements = done.status?.requirementStatus ?? [];
    expect(requirements.map((status) => [status.kind, status.name, status.status])).toEqual([
      ['ClusterServiceVersion', 'widget.v1', 'Present'],
      ['CustomResourceDefinition', 'widgets.example.com', 'Present'],
      ['ServiceAccount', 'operator', 'Present'],
    ]);
    expect(requirements[1]?.message).toBe('CRD is present and Established condition is true');
    expect((requirements[2] as { dependents?: unknown }).dependents).toEqual([
      {
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        kind: 'PolicyRule',
        status: 'Satisfied',
        message: 'namespaced rule:{"verbs":["get"],"apiGroups":[""],"resources":["configmaps"]}',
      },
    ]);

    const deployment = await client.get<CsvObject & { spec: { template: { metadata: { annotations: Record<string, string> } } } }>({
      ...Kinds.deployment,
      namespace: 'happy',
      name: 'widget.v1-operator',
    });
    expect(deployment.metadata?.labels).toMatchObject({
      'olm.owner': 'widget.v1',
      'olm.owner.namespace': 'happy',
      'olm.owner.kind': 'ClusterServiceVersion',
      'olm.managed': 'true',
    });
    expect(deployment.metadata?.labels?.['olm.deployment-spec-hash']).toBeTruthy();
    expect(deployment.spec.template.metadata.annotations).toMatchObject({ 'olm.operatorGroup': 'og', 'olm.targetNamespaces': 'happy' });
    expect(deployment.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'ClusterServiceVersion', name: 'widget.v1' });

    const events = await eventually(async () => {
      const items = await listEvents(client, 'happy', 'widget.v1');
      return items.length >= 4 ? items : undefined;
    });
    expect(events.map((event) => event.reason)).toEqual(expect.arrayContaining(['RequirementsUnknown', 'AllRequirementsMet', 'InstallSucceeded']));

    // Per-API ClusterRoles once Succeeded, from the RBAC generator: exactly these rules and labels.
    const apiLabel = (suffix: string) => `olm.opgroup.permissions/aggregate-to-${fnv64aHex('Widget.v1.example.com')}-${suffix}`;
    const crd = await client.get({ ...Kinds.customResourceDefinition, name: 'widgets.example.com' });
    const widgets = (verbs: string[]) => [{ verbs, apiGroups: ['example.com'], resources: ['widgets'] }];
    const expectedRoles: Array<[string, string, unknown]> = [
      ['admin', 'admin', widgets(['*'])],
      ['edit', 'edit', widgets(['create', 'update', 'patch', 'delete'])],
      ['view', 'view', widgets(['get', 'list', 'watch'])],
      ['crdview', 'view', [{ verbs: ['get'], apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], resourceNames: ['widgets.example.com'] }]],
    ];
    for (const [suffix, aggregateTo, rules] of expectedRoles) {
      const role = await eventually(() => client.find<RbacObject>({ ...Kinds.clusterRole, name: `widgets.example.com-v1-${suffix}` }), { message: `per-API ${suffix} role` });
      expect(role.rules).toEqual(rules);
      expect(role.metadata?.labels).toEqual({ [`rbac.authorization.k8s.io/aggregate-to-${aggregateTo}`]: 'true', [apiLabel(aggregateTo)]: 'true', 'olm.managed': 'true' });
      expect(role.metadata?.ownerReferences).toEqual([
        { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'widgets.example.com', uid: crd.metadata?.uid, controller: false, blockOwnerDeletion: false },
      ]);
    }
    // The group's admin/edit/view roles aggregate them.
    for (const suffix of ['admin', 'edit', 'view']) {
      await eventually(async () => {
        const roles = await listAll<RbacObject & { aggregationRule?: { clusterRoleSelectors?: Array<{ matchLabels: Record<string, string> }> } }>(
          client,
          Kinds.clusterRole,
          'olm.owner=og,olm.owner.namespace=happy,olm.owner.kind=OperatorGroup',
        );
        const role = roles.find((item) => item.metadata?.name?.startsWith(`olm.og.og.${suffix}-`));
        return role?.aggregationRule?.clusterRoleSelectors?.some((selector) => selector.matchLabels[apiLabel(suffix)] === 'true');
      }, { message: `group ${suffix} role aggregates the API` });
    }

    await eventually(async () => {
      const text = await harness.controller.registry.metrics();
      return text.includes('csv_succeeded{namespace="happy",name="widget.v1",version="1.0.0"} 1') && !text.includes('csv_abnormal{namespace="happy",name="widget.v1"');
    }, { message: 'csv_succeeded series' });
  });

  it('waits in Pending/RequirementsNotMet until CRDs and service accounts exist, and checks minKubeVersion', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'reqs');
    await createOperatorGroup(client, 'reqs', 'og');
    await groupSynced(client, 'reqs', 'og');
    const manifest = csv({
      namespace: 'reqs',
      name: 'gadget.v1',
      ownedCrds: [{ name: 'gadgets.example.com', version: 'v2', kind: 'Gadget' }],
      requiredCrds: [{ name: 'parts.example.com', version: 'v1', kind: 'Part' }],
      serviceAccounts: ['gadget-operator'],
    });
    await client.create(manifest);
    const waiting = await waitForPhase(client, 'reqs', 'gadget.v1', 'Pending', 'RequirementsNotMet');
    expect(waiting.status?.message).toBe("one or more requirements couldn't be found");
    expect(waiting.status?.requirementStatus?.map((status) => [status.name, status.status, status.message])).toEqual([
      ['gadgets.example.com', 'NotPresent', 'CRD is not present'],
      ['parts.example.com', 'NotPresent', 'CRD is not present'],
      ['gadget-operator', 'NotPresent', 'Service account does not exist'],
    ]);
    await eventually(async () =>
      (await harness.controller.registry.metrics()).includes(
        'csv_abnormal{namespace="reqs",name="gadget.v1",version="1.0.0",phase="Pending",reason="RequirementsNotMet"} 1',
      ), { message: 'abnormal series' });

    // A CRD that does not serve the wanted version.
    await client.create(crdManifest('gadgets', 'example.com', 'Gadget', ['v1']));
    await client.create(crdManifest('parts', 'example.com', 'Part'));
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'reqs', name: 'gadget-operator' } });
    // The account exists but nothing grants it the CSV's rule yet.
    const unsatisfied = await eventually(async () => {
      const current = await getCsv(client, 'reqs', 'gadget.v1');
      const statuses = current?.status?.requirementStatus ?? [];
      return statuses[0]?.message === 'CRD version not served' && statuses[2]?.status === 'PresentNotSatisfied' ? statuses : undefined;
    });
    expect(unsatisfied[2]).toMatchObject({
      message: 'Policy rule not satisfied for service account',
      dependents: [{ kind: 'PolicyRule', status: 'NotSatisfied', message: 'namespaced rule:{"verbs":["get"],"apiGroups":[""],"resources":["configmaps"]}' }],
    });
    await grantPermissions(client, manifest);
    await eventually(async () => (await getCsv(client, 'reqs', 'gadget.v1'))?.status?.requirementStatus?.[2]?.status === 'Present', { message: 'permissions granted' });
    await client.delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'gadgets.example.com' });
    await eventually(async () => !(await client.find({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'gadgets.example.com' })));
    await client.create(crdManifest('gadgets', 'example.com', 'Gadget', ['v2']));
    await waitForPhase(client, 'reqs', 'gadget.v1', 'Succeeded');
    await eventually(async () => {
      const text = await harness.controller.registry.metrics();
      return text.includes('csv_succeeded{namespace="reqs",name="gadget.v1",version="1.0.0"} 1') && !text.includes('csv_abnormal{namespace="reqs",name="gadget.v1"');
    }, { message: 'abnormal series removed once Succeeded' });

    // minKubeVersion above the server's (v1.32.4).
    await client.create(csv({ namespace: 'reqs', name: 'future.v1', minKubeVersion: '99.0.0', deployments: ['future'] }));
    const future = await waitForPhase(client, 'reqs', 'future.v1', 'Pending', 'RequirementsNotMet');
    expect(future.status?.requirementStatus?.[0]).toMatchObject({
      kind: 'ClusterServiceVersion',
      status: 'PresentNotSatisfied',
      message: 'CSV version requirement not met: minKubeVersion (99.0.0) > server version (1.32.4)',
    });
  });

  it('removes its finalizer and copies when deleted; deployments are garbage collected', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'gone');
    await createOperatorGroup(client, 'gone', 'og');
    await groupSynced(client, 'gone', 'og');
    await client.create(csv({ namespace: 'gone', name: 'temp.v1' }));
    await waitForPhase(client, 'gone', 'temp.v1', 'Succeeded');
    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'gone', name: 'temp.v1' });
    await eventually(async () => !(await getCsv(client, 'gone', 'temp.v1')), { message: 'CSV deleted' });
    await eventually(async () => !(await client.find({ ...Kinds.deployment, namespace: 'gone', name: 'temp.v1-operator' })), {
      message: 'deployment collected',
    });
  });
});

import { RbacAuthorizationV1Api, type V1ClusterRole } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, kubeConfigOf, openWatch, startTestServer } from './helpers.js';

/** kube-controller-manager's clusterrole-aggregation controller, seen through a real client. */
describe('ClusterRole aggregation', () => {
  let server: ApiServer;
  let rbac: RbacAuthorizationV1Api;

  beforeAll(async () => {
    server = await startTestServer();
    const config = kubeConfigOf(server);
    rbac = config.makeApiClient(RbacAuthorizationV1Api);
  });

  afterAll(async () => {
    await server.stop();
  });

  const rulesOf = async (name: string) => (await rbac.readClusterRole({ name })).rules ?? [];
  const create = (body: V1ClusterRole) => rbac.createClusterRole({ body });

  it("fills rules from the selected roles: selectors in order, roles by name, each rule once, never its own", async () => {
    // Created out of name order, so that the order of the result is the controller's.
    await create({ metadata: { name: 'agg1-b', labels: { agg1: 'first' } }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
    await create({
      metadata: { name: 'agg1-a', labels: { agg1: 'first' } },
      // The second rule is the first of agg1-b with an empty resourceNames list: the same rule for kube.
      rules: [
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: [] },
      ],
    });
    await create({ metadata: { name: 'agg1-0', labels: { agg1: 'second' } }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] });
    await create({
      metadata: { name: 'agg1', labels: { agg1: 'first' } },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg1: 'first' } }, { matchExpressions: [{ key: 'agg1', operator: 'In', values: ['second'] }] }] },
      rules: [{ apiGroups: ['self'], resources: ['ignored'], verbs: ['*'] }],
    });
    await eventually(async () =>
      expect(await rulesOf('agg1')).toEqual([
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      ]),
    );
    const role = await rbac.readClusterRole({ name: 'agg1' });
    const entry = role.metadata?.managedFields?.find((field) => field.manager === 'clusterrole-aggregation-controller');
    expect(entry).toMatchObject({ operation: 'Apply', apiVersion: 'rbac.authorization.k8s.io/v1' });
    expect(Object.keys((entry?.fieldsV1 ?? {}) as object)).toContain('f:rules');
  });

  it('follows every change of a selected role: new, edited, relabelled, deleted', async () => {
    await create({ metadata: { name: 'agg2' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg2: 'true' } }] } });
    await create({ metadata: { name: 'agg2-x', labels: { agg2: 'true' } }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] });
    await eventually(async () => expect(await rulesOf('agg2')).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]));

    await rbac.patchClusterRole({ name: 'agg2-x', body: [{ op: 'replace', path: '/rules/0/verbs', value: ['get', 'list'] }] });
    await eventually(async () => expect(await rulesOf('agg2')).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }]));

    await create({ metadata: { name: 'agg2-y', labels: { agg2: 'true' } }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] }] });
    await eventually(async () => expect((await rulesOf('agg2')).map((rule) => rule.resources?.[0])).toEqual(['secrets', 'configmaps']));

    await rbac.patchClusterRole({ name: 'agg2-x', body: [{ op: 'remove', path: '/metadata/labels/agg2' }] });
    await eventually(async () => expect((await rulesOf('agg2')).map((rule) => rule.resources?.[0])).toEqual(['configmaps']));

    await rbac.deleteClusterRole({ name: 'agg2-y' });
    await eventually(async () => expect(await rulesOf('agg2')).toEqual([]));
  });

  it('puts back rules someone else overwrote, and writes nothing once they are right', async () => {
    await create({ metadata: { name: 'agg3-source', labels: { agg3: 'true' } }, rules: [{ apiGroups: [''], resources: ['events'], verbs: ['create'] }] });
    await create({ metadata: { name: 'agg3' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg3: 'true' } }] } });
    await eventually(async () => expect(await rulesOf('agg3')).toHaveLength(1));
    const role = await rbac.readClusterRole({ name: 'agg3' });
    await rbac.replaceClusterRole({ name: 'agg3', body: { ...role, rules: [] } });
    await eventually(async () => expect(await rulesOf('agg3')).toEqual([{ apiGroups: [''], resources: ['events'], verbs: ['create'] }]));

    // Settled: a watch from now on sees no write of the aggregated role, though other roles change.
    const watch = openWatch(server, `/apis/rbac.authorization.k8s.io/v1/clusterroles?watch=true&fieldSelector=metadata.name%3Dagg3&resourceVersion=${server.revision()}`);
    await create({ metadata: { name: 'agg3-unrelated', labels: { other: 'true' } }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
    await rbac.patchClusterRole({ name: 'agg3-source', body: [{ op: 'add', path: '/metadata/annotations', value: { touched: 'yes' } }] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    watch.stop();
    expect(watch.events).toEqual([]);
  });

  it('leaves roles without an aggregationRule alone, and aggregates nothing from an invalid selector', async () => {
    await create({ metadata: { name: 'plain', labels: { agg4: 'true' } }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] });
    await create({ metadata: { name: 'agg4-bad' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'agg4', operator: 'Sideways' }] }] } });
    const hostile = await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'agg4-hostile' }, aggregationRule: { clusterRoleSelectors: 'all' } });
    // kube-apiserver refuses such a role (400 when decoding); stored anyway, it must not break the controller.
    expect([201, 400, 422]).toContain(hostile.status);
    await create({ metadata: { name: 'agg4' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg4: 'true' } }] } });
    await eventually(async () => expect(await rulesOf('agg4')).toHaveLength(1));
    expect(await rulesOf('plain')).toEqual([{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]);
    expect(await rulesOf('agg4-bad')).toEqual([]);
    if (hostile.status === 201) expect((await call(server, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/agg4-hostile')).body.rules).toBeUndefined();
  });
});

import type { CachedObject } from '@olm/core';
import { kubeconfigFor, startTestCluster, type ServedRequest } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import { createNamespace, createOperatorGroup, csv, eventually, getCsv, grantPermissions, groupSynced, sleep, startController, waitForPhase } from './helpers.js';

const olmUser = 'olm-operator';
const served: ServedRequest[] = [];
let env: Awaited<ReturnType<typeof startTestCluster>>;
let controller: Awaited<ReturnType<typeof startController>>;

beforeAll(async () => {
  const token = 'olm-operator-token';
  env = await startTestCluster({ deploymentRolloutDelayMs: 20, users: [{ token, name: olmUser, groups: ['system:masters'] }], onRequest: (request) => served.push(request) });
  controller = await startController(env, {}, kubeconfigFor(env.server, token));
});
afterAll(async () => {
  await controller?.stop();
  await env?.stop();
});

const groupLabels = (namespace: CachedObject | undefined) => Object.keys(namespace?.metadata?.labels ?? {}).filter((key) => key.startsWith('olm.operatorgroup.uid/'));
const describeRequest = (request: ServedRequest) => `${request.verb} ${request.resource}${request.subresource ? `/${request.subresource}` : ''} ${request.namespace}/${request.name} -> ${request.code}`;

describe('a namespace being deleted', () => {
  it('is left alone: no label update, no copied CSV, RBAC or event created in it, and its deletion completes without OLM conflicts', async () => {
    const { client } = env;
    for (const namespace of ['term-op', 'doomed', 'kept']) await createNamespace(client, namespace);
    await createOperatorGroup(client, 'term-op', 'og', { targetNamespaces: ['doomed', 'kept'] });
    // doomed's own group labels it too: when the namespace controller deletes the group, its label would be removed.
    await createOperatorGroup(client, 'doomed', 'own');
    await groupSynced(client, 'term-op', 'og');
    await groupSynced(client, 'doomed', 'own');
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'term-op', name: 'multi' } });
    const manifest = csv({ namespace: 'term-op', name: 'multi.v1', serviceAccounts: ['multi'] });
    await grantPermissions(client, manifest);
    await client.create(manifest);
    await waitForPhase(client, 'term-op', 'multi.v1', 'Succeeded');
    await eventually(async () => (await getCsv(client, 'doomed', 'multi.v1')) && (await getCsv(client, 'kept', 'multi.v1')), { message: 'copies in both targets' });
    await eventually(async () => (await client.list(Kinds.role, { namespace: 'doomed' })).items.length > 0, { message: 'target RBAC in doomed' });
    await eventually(async () => groupLabels(await client.find({ ...Kinds.namespace, name: 'doomed' })).length === 2, { message: 'both group labels on doomed' });

    // Kept Terminating by a finalizer on an object in it.
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'doomed', name: 'hold', finalizers: ['example.com/hold'] } });
    const start = served.length;
    await client.delete({ ...Kinds.namespace, name: 'doomed' });
    await eventually(
      async () => {
        const copies = await client.list(Kinds.clusterServiceVersion, { namespace: 'doomed' });
        const groups = await client.list(Kinds.operatorGroup, { namespace: 'doomed' });
        return copies.items.length === 0 && groups.items.length === 0;
      },
      { message: 'the namespace controller emptied doomed' },
    );
    await sleep(1_500); // several of the controller's requeue periods (200 ms)

    const olm = () => served.slice(start).filter((request) => request.user === olmUser);
    const writesIntoDoomed = olm().filter((request) => request.namespace === 'doomed' && ['create', 'update', 'patch'].includes(request.verb));
    expect(writesIntoDoomed.map(describeRequest)).toEqual([]);
    expect(olm().filter((request) => request.code === 403).map(describeRequest)).toEqual([]);
    // The other target keeps its copy.
    expect(await getCsv(client, 'kept', 'multi.v1')).toBeDefined();

    await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'doomed', name: 'hold' }, { metadata: { finalizers: null } });
    await eventually(async () => (await client.find({ ...Kinds.namespace, name: 'doomed' })) === undefined, { message: 'doomed deleted' });
    expect(olm().filter((request) => request.namespace === 'doomed' && request.code === 409).map(describeRequest)).toEqual([]);
    expect(olm().filter((request) => request.namespace === 'doomed' && ['create', 'update', 'patch'].includes(request.verb)).map(describeRequest)).toEqual([]);
  });
});

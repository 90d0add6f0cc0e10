import { renderedObjects } from '@olm/bundle-render';
import type { KubeObject } from '@olm/core';
import { eventually, startTestCluster, type ServedRequest, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRevisionApplier, type ApplyResult, type RevisionApplier } from '../src/index.js';
import { renderedExample } from './example-bundles.js';

const owner = { name: 'acme-database', uid: '5f0c7f5e-0000-4000-8000-000000000001' };
const serviceAccount = { namespace: 'acme-system', name: 'installer' };
const installer = 'system:serviceaccount:acme-system:installer';
const example = (bundle: string) => renderedExample(bundle, { extensionName: owner.name, installNamespace: 'acme-system' });
const rbac = 'rbac.authorization.k8s.io';

describe('a rendered bundle applied as revisions, as the extension ServiceAccount, on a real API server', () => {
  let cluster: TestCluster;
  let applier: RevisionApplier;
  const served: ServedRequest[] = [];

  beforeAll(async () => {
    cluster = await startTestCluster({ olmCrds: false, namespaces: ['acme-system', 'olmv1-system'], onRequest: (request) => served.push(request) });
    await cluster.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: 'acme-system' } });
    applier = createRevisionApplier({ client: cluster.client, kubeConfig: cluster.server.kubeconfig, fieldManager: 'olm-v1' });
  });
  afterAll(() => cluster?.stop());

  /** Applies until complete, as the controller's requeues would. */
  const incomplete: ApplyResult[] = [];
  const applyUntilComplete = async (bundleName: string): Promise<ApplyResult> => {
    const { rendered, bundle } = await example(bundleName);
    return eventually(async () => {
      const result = await applier.apply({ owner, serviceAccount, bundle, rendered });
      if (!result.complete) {
        incomplete.push(result);
        throw new Error(result.message);
      }
      return result;
    }, { message: `${bundleName} applied` });
  };
  const find = (object: KubeObject) => cluster.client.find<KubeObject & Record<string, any>>({ apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name!, namespace: object.metadata.namespace });

  it('preflight lists every permission an account without rights lacks, the escalation check included, sorted and once each', async () => {
    // A Role naming a cluster-scoped resource authorizes nothing for it: it must not hide the CRD verbs.
    await cluster.client.create({ apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'crds-in-namespace', namespace: 'acme-system' }, rules: [{ apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['*'] }] });
    await cluster.client.create({
      apiVersion: `${rbac}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'crds-in-namespace', namespace: 'acme-system' },
      roleRef: { apiGroup: rbac, kind: 'Role', name: 'crds-in-namespace' },
      subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: 'acme-system' }],
    });
    const { rendered } = await example('acme-database.v1.1.1');
    served.length = 0;
    const missing = await applier.preflight({ owner, serviceAccount, rendered });
    // One rules review per namespace (acme-system, and one for the cluster scope), not one request per object and verb.
    expect(served.filter((request) => request.verb === 'create').map((request) => request.resource)).toEqual(['selfsubjectrulesreviews', 'selfsubjectrulesreviews']);
    for (const object of renderedObjects(rendered)) {
      const resource = (await cluster.client.resourceFor(object)).plural;
      const group = object.apiVersion.includes('/') ? object.apiVersion.split('/')[0] : '';
      const namespace = object.metadata.namespace ? { namespace: object.metadata.namespace } : {};
      for (const verb of ['get', 'patch', 'update', 'delete']) expect(missing).toContainEqual({ verb, group, resource, ...namespace, name: object.metadata.name });
      for (const verb of ['create', 'list', 'watch']) expect(missing).toContainEqual({ verb, group, resource, ...namespace });
    }
    // The ClusterRoles grant `*` on databases and configmap verbs: without escalate, the account must hold them.
    expect(missing).toContainEqual({ verb: '*', group: 'acme.example.com', resource: 'databases' });
    expect(missing).toContainEqual({ verb: 'watch', group: '', resource: 'namespaces' });
    const keys = missing.map((entry) => JSON.stringify([entry.namespace ?? '', entry.group, entry.resource, entry.name ?? '', entry.verb]));
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual(keys);
    expect(await cluster.client.find({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'databases.acme.example.com' })).toBeUndefined();
  });

  it('preflight asks only for the granted rules once the account holds the verbs, and for nothing once it may escalate and bind', async () => {
    const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
    const installerRole = (extra: string[]) => ({
      apiVersion: `${rbac}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'extension-installer' },
      rules: [
        { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs },
        { apiGroups: [rbac], resources: ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'], verbs: [...verbs, ...extra] },
        { apiGroups: [''], resources: ['serviceaccounts', 'services', 'configmaps', 'secrets'], verbs },
        { apiGroups: ['apps'], resources: ['deployments'], verbs },
      ],
    });
    await cluster.client.create(installerRole([]));
    await cluster.client.create({
      apiVersion: `${rbac}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'extension-installer' },
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'extension-installer' },
      subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: 'acme-system' }],
    });
    const { rendered } = await example('acme-database.v1.1.1');
    const escalating = await applier.preflight({ owner, serviceAccount, rendered });
    // What the bundle's ClusterRoles grant and the account does not hold (configmaps it holds already).
    expect(escalating).toContainEqual({ verb: '*', group: 'acme.example.com', resource: 'databases' });
    expect(escalating).toContainEqual({ verb: 'create', group: 'coordination.k8s.io', resource: 'leases' });
    expect(escalating.filter((entry) => entry.resource === 'configmaps' || entry.resource === 'deployments')).toEqual([]);

    // kube refuses a ClusterRole without escalate and a binding without bind: each alone leaves the other asking.
    for (const only of ['escalate', 'bind']) {
      await cluster.client.apply(installerRole([only]), { fieldManager: 'test', force: true });
      expect(await applier.preflight({ owner, serviceAccount, rendered })).toContainEqual({ verb: '*', group: 'acme.example.com', resource: 'databases' });
    }
    await cluster.client.apply(installerRole(['escalate', 'bind']), { fieldManager: 'test', force: true });
    for (const bundle of ['acme-database.v1.1.1', 'acme-database.v1.2.0']) {
      const next = await example(bundle);
      expect(await applier.preflight({ owner, serviceAccount, rendered: next.rendered })).toEqual([]);
    }
  });

  it('refuses a revision larger than maxRevisionBytes, or without its namespace, before anything is written', async () => {
    const small = createRevisionApplier({ client: cluster.client, fieldManager: 'olm-v1', maxRevisionBytes: 512 });
    const { rendered, bundle } = await example('acme-database.v1.1.1');
    served.length = 0;
    await expect(small.apply({ owner, serviceAccount, bundle, rendered })).rejects.toMatchObject({
      code: 'OLM_REVISION_LIMIT_EXCEEDED',
      message: expect.stringMatching(/revision 1 of ClusterExtension acme-database \(bundle acme-database.v1.1.1\) is \d+ bytes compressed, more than maxRevisionBytes \(512\)/),
    });
    expect(served.filter((request) => !['get', 'list', 'watch'].includes(request.verb))).toEqual([]);
    const elsewhere = createRevisionApplier({ client: cluster.client, fieldManager: 'olm-v1', revisionNamespace: 'no-such-namespace' });
    await expect(elsewhere.apply({ owner, serviceAccount, bundle, rendered })).rejects.toMatchObject({
      code: 'OLM_REVISION_INVALID_INPUT',
      message: 'the revision namespace no-such-namespace does not exist: create it, or set revisionNamespace to an existing namespace',
    });
  });

  it('applies phase by phase as the ServiceAccount with server-side apply, and records revision 1', async () => {
    served.length = 0;
    const result = await applyUntilComplete('acme-database.v1.1.1');
    expect(result).toMatchObject({ revision: 1, complete: true });
    // The local API server establishes a CRD just after the write returns, as kube-apiserver's controllers do:
    // the calls before that stop after the CRD phase and say what they wait for.
    expect(incomplete.map((each) => each.message)).toEqual(incomplete.map(() => 'revision 1 (acme-database.v1.1.1): waiting for CustomResourceDefinition databases.acme.example.com to be Established'));
    const { rendered } = await example('acme-database.v1.1.1');
    for (const object of renderedObjects(rendered)) {
      const live = await find(object);
      expect(live, `${object.kind} ${object.metadata.name}`).toBeDefined();
      expect(live!.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'olm-v1', operation: 'Apply' }));
    }
    const crd = await find(rendered.phases[0]!.objects[0]!);
    expect(crd!.status.conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
    const writes = served.filter((request) => request.verb === 'patch' && request.resource !== 'secrets');
    expect(writes.length).toBe(renderedObjects(rendered).length);
    expect(new Set(writes.map((request) => request.user))).toEqual(new Set([installer]));
    expect(await applier.installed(owner)).toEqual({ revision: 1, bundle: { name: 'acme-database.v1.1.1', version: '1.1.1' } });
  });

  it('applies a newer bundle as revision 2 and prunes what it dropped once complete', async () => {
    const { rendered: previous } = await example('acme-database.v1.1.1');
    const dropped = renderedObjects(previous).filter((object) => object.kind.startsWith('ClusterRole'));
    expect(dropped.length).toBeGreaterThan(0);
    // A finalizer holds one dropped ClusterRole: revision 2 is installed, but not complete until it is gone.
    const held = dropped.find((object) => object.kind === 'ClusterRole')!;
    const heldReference = { apiVersion: held.apiVersion, kind: 'ClusterRole', name: held.metadata.name! };
    await cluster.client.patch(heldReference, { metadata: { finalizers: ['example.com/hold'] } });
    const { rendered: newer, bundle: newerBundle } = await example('acme-database.v1.2.0');
    expect(await applier.apply({ owner, serviceAccount, bundle: newerBundle, rendered: newer })).toEqual({
      revision: 2,
      complete: false,
      message: `revision 2 (acme-database.v1.2.0) applied; waiting for the deletion of ClusterRole ${held.metadata.name}, dropped since earlier revisions`,
    });
    expect(await applier.installed(owner)).toEqual({ revision: 2, bundle: { name: 'acme-database.v1.2.0', version: '1.2.0' } });
    await cluster.client.patch(heldReference, { metadata: { finalizers: null } });

    const result = await applyUntilComplete('acme-database.v1.2.0');
    expect(result).toMatchObject({ revision: 2, complete: true });
    expect(result.message).toContain(`${dropped.length} objects of earlier revisions pruned`);
    for (const object of dropped) expect(await find(object), `${object.kind} ${object.metadata.name}`).toBeUndefined();
    const { rendered } = await example('acme-database.v1.2.0');
    for (const object of renderedObjects(rendered)) expect(await find(object)).toBeDefined();
    const deployment = await find(renderedObjects(rendered).find((object) => object.kind === 'Deployment')!);
    expect(deployment!.spec.template.spec.containers[0].image).toBe('registry.example.com/acme/acme-database-operator:v1.2.0');
    expect(await applier.installed(owner)).toEqual({ revision: 2, bundle: { name: 'acme-database.v1.2.0', version: '1.2.0' } });
    const records = await cluster.client.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: 'olmv1-system', labelSelector: 'olm.operatorframework.io/owner-name=acme-database' });
    expect(records.items.map((record) => [record.metadata?.labels?.['olm.operatorframework.io/revision'], record.metadata?.labels?.['olm.operatorframework.io/revision-state']]).sort()).toEqual([
      ['1', 'Archived'],
      ['2', 'Installed'],
    ]);
  });

  it('makes no new revision and no write when the same bundle is applied again', async () => {
    const { rendered, bundle } = await example('acme-database.v1.2.0');
    served.length = 0;
    // Rendered again (a new object graph, keys in another order would not matter either): compared as objects.
    const result = await applier.apply({ owner, serviceAccount, bundle, rendered: structuredClone(rendered) });
    expect(result).toMatchObject({ revision: 2, complete: true });
    expect(result.message).toContain('0 of');
    expect(served.filter((request) => !['get', 'list', 'watch'].includes(request.verb))).toEqual([]);
  });

  it('reads a record back only within maxRevisionContentBytes once decompressed', async () => {
    const { rendered, bundle } = await example('acme-database.v1.2.0');
    const bounded = createRevisionApplier({ client: cluster.client, fieldManager: 'olm-v1', maxRevisionContentBytes: 1000 });
    await expect(bounded.apply({ owner, serviceAccount, bundle, rendered })).rejects.toMatchObject({
      code: 'OLM_REVISION_INVALID_RECORD',
      message: expect.stringContaining('revision record Secret olmv1-system/acme-database-r2 cannot be decompressed within 1000 bytes'),
    });
  });

  it('leaves a field another field manager took to it instead of fighting over it', async () => {
    const { rendered, bundle } = await example('acme-database.v1.2.0');
    const deployment = renderedObjects(rendered).find((object) => object.kind === 'Deployment')!;
    const identity = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: deployment.metadata.name, namespace: deployment.metadata.namespace } };
    await cluster.client.apply({ ...identity, spec: { replicas: 3 } }, { fieldManager: 'kubectl', force: true });
    // A field inside a keyed list item: the manager container's image.
    const image = 'registry.example.com/acme/acme-database-operator:hotfix';
    await cluster.client.apply({ ...identity, spec: { template: { spec: { containers: [{ name: 'manager', image }] } } } }, { fieldManager: 'hotfixer', force: true });
    served.length = 0;
    const result = await applier.apply({ owner, serviceAccount, bundle, rendered });
    expect(result).toMatchObject({ revision: 2, complete: true });
    expect(result.message).toContain(`Deployment acme-system/${deployment.metadata.name} .spec.replicas (kubectl)`);
    expect(result.message).toContain('.spec.template.spec.containers[name="manager"].image (hotfixer)');
    const live = await find(deployment);
    expect(live!.spec.replicas).toBe(3);
    expect(live!.spec.template.spec.containers[0].image).toBe(image);
    expect(live!.spec.template.spec.containers[0].args).toEqual(['--leader-elect']);
    expect(live!.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'kubectl', fieldsV1: expect.objectContaining({ 'f:spec': { 'f:replicas': {} } }) }));
    expect(served.filter((request) => request.verb === 'patch' && request.query.includes('force=true'))).toEqual([]);
  });

  it('uninstalls workloads, then RBAC, then CRDs (and so custom resources), incomplete while a deletion is pending, and removes the records', async () => {
    const { rendered } = await example('acme-database.v1.2.0');
    const deployment = renderedObjects(rendered).find((object) => object.kind === 'Deployment')!;
    const clusterRole = renderedObjects(rendered).find((object) => object.kind === 'ClusterRole')!;
    const reference = { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name!, namespace: deployment.metadata.namespace };
    await cluster.client.patch(reference, { metadata: { finalizers: ['example.com/hold'] } });
    await cluster.client.create({ apiVersion: 'acme.example.com/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'acme-system' }, spec: { engine: 'postgres' } });

    const pending = await applier.uninstall(owner);
    expect(pending).toEqual({ complete: false, message: `uninstalling ClusterExtension acme-database: waiting for the deletion of Deployment acme-system/${deployment.metadata.name}` });
    expect(await find(clusterRole)).toBeDefined();
    expect(await find(rendered.phases[0]!.objects[0]!)).toBeDefined();

    await cluster.client.patch(reference, { metadata: { finalizers: null } });
    const result = await eventually(async () => {
      const step = await applier.uninstall(owner);
      if (!step.complete) throw new Error(step.message);
      return step;
    }, { message: 'acme-database uninstalled' });
    expect(result.message).toContain('revisions 1, 2 removed');
    for (const bundleName of ['acme-database.v1.1.1', 'acme-database.v1.2.0']) {
      const { rendered: each } = await example(bundleName);
      for (const object of renderedObjects(each)) expect(await find(object), `${object.kind} ${object.metadata.name}`).toBeUndefined();
    }
    await expect(cluster.client.request({ method: 'GET', path: '/apis/acme.example.com/v1/namespaces/acme-system/databases/orders' })).rejects.toMatchObject({ details: { statusCode: 404 } });
    expect((await cluster.client.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: 'olmv1-system' })).items).toEqual([]);
    expect(await applier.installed(owner)).toBeUndefined();
  });

  it('keeps at most maxRevisions records (here 1: only the installed one), numbering on across a downgrade', async () => {
    const kept = createRevisionApplier({ client: cluster.client, fieldManager: 'olm-v1', maxRevisions: 1 });
    const apply = async (bundleName: string) => {
      const { rendered, bundle } = await example(bundleName);
      return eventually(async () => {
        const result = await kept.apply({ owner, serviceAccount, bundle, rendered });
        if (!result.complete) throw new Error(result.message);
        return result;
      });
    };
    expect((await apply('acme-database.v1.1.1')).revision).toBe(1);
    // Revision 1 cannot be archived while a ClusterRole it dropped is held: no third revision meanwhile.
    const { rendered: first } = await example('acme-database.v1.1.1');
    const held = { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', name: renderedObjects(first).find((object) => object.kind === 'ClusterRole')!.metadata.name! };
    await cluster.client.patch(held, { metadata: { finalizers: ['example.com/hold'] } });
    const second = await example('acme-database.v1.2.0');
    expect(await kept.apply({ owner, serviceAccount, ...second })).toMatchObject({ revision: 2, complete: false });
    const third = await example('acme-database.v1.0.0');
    await expect(kept.apply({ owner, serviceAccount, ...third })).rejects.toMatchObject({
      code: 'OLM_REVISION_LIMIT_EXCEEDED',
      message:
        'ClusterExtension acme-database has 1 revisions besides the installed one still applying or pruning (1), as many as maxRevisions (1) allows: ' +
        'let revision 2 complete (apply its bundle again until complete), or raise maxRevisions',
    });
    await cluster.client.patch(held, { metadata: { finalizers: null } });
    expect((await apply('acme-database.v1.2.0')).revision).toBe(2);
    expect((await apply('acme-database.v1.0.0')).revision).toBe(3);
    expect(await kept.installed(owner)).toEqual({ revision: 3, bundle: { name: 'acme-database.v1.0.0', version: '1.0.0' } });
    const records = await cluster.client.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: 'olmv1-system' });
    expect(records.items.map((record) => record.metadata?.name)).toEqual(['acme-database-r3']);
    const { rendered: newer } = await example('acme-database.v1.2.0');
    for (const object of renderedObjects(newer).filter((each) => each.kind.startsWith('ClusterRole'))) expect(await find(object)).toBeUndefined();
    await eventually(async () => (await kept.uninstall(owner)).complete);
  });

  it('refuses, before writing anything, to take over an object it did not install', async () => {
    await cluster.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'acme-database-operator', namespace: 'acme-system' } });
    const { rendered, bundle } = await example('acme-database.v1.2.0');
    served.length = 0;
    await expect(applier.apply({ owner, serviceAccount, bundle, rendered })).rejects.toMatchObject({
      code: 'OLM_REVISION_OBJECT_COLLISION',
      message:
        'ClusterExtension acme-database will not take over objects it did not install: ServiceAccount acme-system/acme-database-operator exists and was not installed by a ClusterExtension; ' +
        'delete them, or remove them from one of the bundles',
    });
    expect(served.filter((request) => request.verb === 'patch')).toEqual([]);
    expect(await find(rendered.phases[0]!.objects[0]!)).toBeUndefined();
    expect(await applier.uninstall(owner)).toMatchObject({ complete: true });
  });
});

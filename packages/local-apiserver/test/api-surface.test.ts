import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, installWidgetCrd, openWatch, startTestServer, widgetCrd } from './helpers.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const applyHeaders = { 'Content-Type': 'application/apply-patch+yaml' };

describe('API surface', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  it('serves discovery documents', async () => {
    const api = await call(server, 'GET', '/api');
    expect(api.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const groups = await call(server, 'GET', '/apis');
    const apps = groups.body.groups.find((group: any) => group.name === 'apps');
    expect(apps).toEqual({ name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } });
    const core = await call(server, 'GET', '/api/v1');
    const pods = core.body.resources.find((resource: any) => resource.name === 'pods');
    expect(pods).toEqual({ name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['po'], categories: ['all'] });
    expect(core.body.resources.map((resource: any) => resource.name)).toContain('pods/status');
    const version = await call(server, 'GET', '/version');
    expect(version.body.gitVersion).toMatch(/^v1\.32\.\d+$/);
  });

  it('adds a CRD to discovery and OpenAPI at once, with a new document hash', async () => {
    const indexBefore = await call(server, 'GET', '/openapi/v3');
    expect(indexBefore.body.paths['apis/example.com/v1']).toBeUndefined();
    await installWidgetCrd(server);
    const list = await call(server, 'GET', '/apis/example.com/v1');
    expect(list.body.resources).toEqual([
      { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: expect.any(Array), shortNames: ['wd'], categories: ['olm'] },
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    ]);
    const group = await call(server, 'GET', '/apis/example.com');
    expect(group.body.preferredVersion.version).toBe('v1');
    expect(group.body.versions.map((entry: any) => entry.version)).toEqual(['v1', 'v1alpha1']);
    const index = await call(server, 'GET', '/openapi/v3');
    const entry = index.body.paths['apis/example.com/v1'].serverRelativeURL as string;
    expect(entry).toMatch(/^\/openapi\/v3\/apis\/example\.com\/v1\?hash=[0-9A-F]+$/);
    const document = await call(server, 'GET', entry);
    const patch = document.body.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect(patch.parameters.map((parameter: any) => parameter.name)).toContain('fieldValidation');
    expect(Object.keys(patch.requestBody.content)).not.toContain('application/strategic-merge-patch+json');
    expect(document.body.components.schemas['com.example.v1.Widget'].properties.spec.properties.size).toEqual({ type: 'integer', description: 'How big.' });
    const coreHash = index.body.paths['api/v1'].serverRelativeURL;
    expect(indexBefore.body.paths['api/v1'].serverRelativeURL).toBe(coreHash);
  });

  it('refuses invalid CRDs with field paths', async () => {
    const bad = structuredClone(widgetCrd) as any;
    bad.metadata.name = 'gadgets.example.com';
    bad.spec.names = { plural: 'gadgets', kind: 'Gadget' };
    bad.spec.versions[1].storage = true;
    bad.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size = { description: 'no type' };
    const response = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', bad);
    expect(response.status).toBe(422);
    expect(response.body.message).toContain('spec.versions: Invalid value');
    expect(response.body.message).toContain('must have exactly one version marked as storage version');
    expect(response.body.message).toContain('spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: Required value');
    const misnamed = structuredClone(widgetCrd) as any;
    misnamed.metadata.name = 'wrong.example.com';
    const named = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', misnamed);
    expect(named.body.message).toBe('CustomResourceDefinition.apiextensions.k8s.io "wrong.example.com" is invalid: metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group');
  });

  it('renders Tables for kubectl get, with printer columns', async () => {
    await call(server, 'POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'tabled' }, spec: { size: 1 } });
    await call(server, 'PATCH', '/apis/example.com/v1/namespaces/default/widgets/tabled/status', { status: { phase: 'Running' } }, { 'Content-Type': 'application/merge-patch+json' });
    const table = await call(server, 'GET', '/apis/example.com/v1/namespaces/default/widgets', undefined, { Accept: tableAccept });
    expect(table.headers.get('content-type')).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(table.body.kind).toBe('Table');
    expect(table.body.columnDefinitions.map((column: any) => column.name)).toEqual(['Name', 'Phase', 'Age']);
    expect(table.body.rows[0].cells[0]).toBe('tabled');
    expect(table.body.rows[0].cells[1]).toBe('Running');
    expect(table.body.rows[0].cells[2]).toMatch(/^\d+s$/);
    expect(table.body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'tabled' } });
    const deployments = await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments', undefined, { Accept: tableAccept });
    expect(deployments.body.columnDefinitions.map((column: any) => column.name)).toEqual(['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector']);
  });

  it('server-side applies: create, conflict with causes, force, and field removal', async () => {
    const path = '/api/v1/namespaces/default/configmaps/applied';
    const first = await call(server, 'PATCH', `${path}?fieldManager=alice`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels: {owner: alice}\ndata:\n  a: "1"\n  b: "2"\n', applyHeaders);
    expect(first.status).toBe(201);
    const conflict = await call(server, 'PATCH', `${path}?fieldManager=bob`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied}\ndata: {a: "9"}\n', applyHeaders);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ reason: 'Conflict', message: 'Apply failed with 1 conflict: conflict with "alice": .data.a', details: { causes: [{ reason: 'FieldManagerConflict', field: '.data.a', message: 'conflict with "alice"' }] } });
    const forced = await call(server, 'PATCH', `${path}?fieldManager=bob&force=true`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied}\ndata: {a: "9"}\n', applyHeaders);
    expect(forced.body.data).toEqual({ a: '9', b: '2' });
    const withdrawn = await call(server, 'PATCH', `${path}?fieldManager=alice`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied}\ndata: {a: "9"}\n', applyHeaders);
    expect(withdrawn.body.data).toEqual({ a: '9' });
    expect(withdrawn.body.metadata.labels).toBeUndefined();
    const missingManager = await call(server, 'PATCH', path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied}\n', applyHeaders);
    expect(missingManager.status).toBe(400);
    // An update by another manager takes the field silently.
    const updated = await call(server, 'PATCH', `${path}?fieldManager=editor`, { data: { a: '10' } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(updated.body.metadata.managedFields.map((entry: any) => `${entry.manager}/${entry.operation}`)).toEqual(expect.arrayContaining(['editor/Update']));
  });

  it('applies to custom resources with associative lists and to the status subresource', async () => {
    const path = '/apis/example.com/v1/namespaces/default/widgets/parts';
    const yaml = (parts: string) => `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: parts}\nspec:\n  size: 1\n  parts: ${parts}\n`;
    await call(server, 'PATCH', `${path}?fieldManager=a`, yaml('[{name: x, count: 1}]'), applyHeaders);
    const merged = await call(server, 'PATCH', `${path}?fieldManager=b`, 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: parts}\nspec:\n  parts: [{name: y, count: 2}]\n', applyHeaders);
    expect(merged.body.spec.parts).toEqual([{ name: 'x', count: 1 }, { name: 'y', count: 2 }]);
    const status = await call(server, 'PATCH', `${path}/status?fieldManager=c`, 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: parts}\nstatus: {phase: Done}\nspec: {size: 100}\n', applyHeaders);
    expect(status.body.status).toEqual({ phase: 'Done' });
    expect(status.body.spec.size).toBe(1);
  });

  it('supports dryRun and deletecollection', async () => {
    const cms = '/api/v1/namespaces/default/configmaps';
    const dry = await call(server, 'POST', `${cms}?dryRun=All`, { metadata: { name: 'dry' } });
    expect(dry.status).toBe(201);
    expect((await call(server, 'GET', `${cms}/dry`)).status).toBe(404);
    for (const name of ['col-1', 'col-2', 'keep']) await call(server, 'POST', cms, { metadata: { name, labels: { batch: name === 'keep' ? 'no' : 'yes' } } });
    const deleted = await call(server, 'DELETE', `${cms}?labelSelector=batch%3Dyes`);
    expect(deleted.body.items.map((item: any) => item.metadata.name)).toEqual(['col-1', 'col-2']);
    const remaining = await call(server, 'GET', `${cms}?labelSelector=batch`);
    expect(remaining.body.items.map((item: any) => item.metadata.name)).toEqual(['keep']);
  });

  it('lists across namespaces and refuses namespaced creates without a namespace', async () => {
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'other' } });
    await call(server, 'POST', '/api/v1/namespaces/other/configmaps', { metadata: { name: 'elsewhere' } });
    const all = await call(server, 'GET', '/api/v1/configmaps?fieldSelector=metadata.namespace%3Dother');
    expect(all.body.items.map((item: any) => `${item.metadata.namespace}/${item.metadata.name}`)).toEqual(['other/elsewhere']);
    expect(all.body.kind).toBe('ConfigMapList');
    expect((await call(server, 'POST', '/api/v1/configmaps', { metadata: { name: 'x' } })).status).toBe(405);
    const mismatch = await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'x', namespace: 'other' } });
    expect(mismatch.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });

  it('bumps generation once when deletion starts, and follows CRD version changes', async () => {
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    await call(server, 'POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'gen', finalizers: ['example.com/hold'] }, spec: { size: 1 } });
    const first = await call(server, 'DELETE', `${widgets}/gen`);
    expect(first.body.metadata.generation).toBe(2);
    const second = await call(server, 'DELETE', `${widgets}/gen`);
    expect(second.body.metadata.generation).toBe(2);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    await call(server, 'PATCH', `${widgets}/gen`, { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });

    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com';
    const crd = (await call(server, 'GET', crdPath)).body;
    crd.spec.versions[1].served = false;
    const updated = await call(server, 'PUT', crdPath, crd);
    expect(updated.status).toBe(200);
    expect(updated.body.metadata.generation).toBe(2);
    expect((await call(server, 'GET', '/apis/example.com/v1alpha1/namespaces/default/widgets')).status).toBe(404);
    expect((await call(server, 'GET', '/apis/example.com')).body.versions.map((entry: any) => entry.version)).toEqual(['v1']);
    const unconditional = await call(server, 'PUT', crdPath, { ...updated.body, metadata: { ...updated.body.metadata, resourceVersion: undefined } });
    expect(unconditional.status).toBe(422);

    // Moving storage to another version records it in storedVersions, after the earlier one.
    const moving = structuredClone(updated.body);
    moving.spec.versions[0].storage = false;
    moving.spec.versions[1] = { ...moving.spec.versions[1], served: true, storage: true };
    expect((await call(server, 'PUT', crdPath, moving)).status).toBe(200);
    await eventually(async () => expect((await call(server, 'GET', crdPath)).body.status.storedVersions).toEqual(['v1', 'v1alpha1']));
    const stored = await call(server, 'POST', '/apis/example.com/v1alpha1/namespaces/default/widgets', { apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'in-alpha' }, spec: { size: 2 } });
    expect(stored.status).toBe(201);
    expect((await call(server, 'GET', `${widgets}/in-alpha`)).body.apiVersion).toBe('example.com/v1');
  });

  it('deletes the objects of a deleted CRD, then stops serving it', async () => {
    const watch = openWatch(server, `/apis/example.com/v1/widgets?watch=true&resourceVersion=${server.revision()}`);
    await call(server, 'POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: { size: 1 } });
    const deleting = await call(server, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
    expect(deleting.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    await eventually(async () => expect((await call(server, 'GET', '/apis/example.com/v1/namespaces/default/widgets/held')).body.metadata.deletionTimestamp).toBeDefined());
    const refused = await call(server, 'POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'late' }, spec: { size: 1 } });
    expect(refused.status).toBe(405);
    const crd = await call(server, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
    expect(crd.body.status.conditions.find((c: any) => c.type === 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionInProgress' });
    await call(server, 'PATCH', '/apis/example.com/v1/namespaces/default/widgets/held', { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
    await eventually(async () => expect((await call(server, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).status).toBe(404));
    expect((await call(server, 'GET', '/apis/example.com/v1/namespaces/default/widgets')).status).toBe(404);
    expect((await call(server, 'GET', '/apis/example.com/v1')).status).toBe(404);
    const groups = await call(server, 'GET', '/apis');
    expect(groups.body.groups.map((group: any) => group.name)).not.toContain('example.com');
    // The open watch saw every widget go, then ended with the CRD.
    await watch.done;
    expect(watch.events.filter((event) => event.type === 'DELETED').map((event) => event.object.metadata.name)).toContain('held');
  });
});

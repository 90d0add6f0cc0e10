import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, startTestServer, widgetCrd } from './helpers.js';

const deployments = '/apis/apps/v1/namespaces/default/deployments';
const gadgets = '/apis/example.com/v1/namespaces/default/gadgets';
const merge = { 'Content-Type': 'application/merge-patch+json' };

/** A CRD with a scale subresource (replicas in spec and status, a selector string in status). */
function gadgetCrd(scale: Record<string, unknown>) {
  const crd = structuredClone(widgetCrd) as any;
  crd.metadata.name = 'gadgets.example.com';
  crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' };
  crd.spec.versions = [
    {
      name: 'v1',
      served: true,
      storage: true,
      subresources: { status: {}, scale },
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: { type: 'object', properties: { size: { type: 'integer' }, replicas: { type: 'integer' } } },
            status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
          },
        },
      },
    },
  ];
  return crd;
}

describe('the scale subresource', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  it('scales a Deployment through an autoscaling/v1 Scale, with generation, rollout and managedFields following', async () => {
    await call(server, 'POST', deployments, {
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'edge'] }] },
        template: { metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    await eventually(async () => expect((await call(server, 'GET', `${deployments}/web`)).body.status.availableReplicas).toBe(2));
    const scale = await call(server, 'GET', `${deployments}/web/scale`);
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 2 },
      status: { replicas: 2, selector: 'app=web,tier in (edge,front)' },
    });

    const scaled = await call(server, 'PUT', `${deployments}/web/scale?fieldManager=autoscaler`, { ...scale.body, spec: { replicas: 4 } });
    expect(scaled.status).toBe(200);
    expect(scaled.body.spec.replicas).toBe(4);
    expect(Number(scaled.body.metadata.resourceVersion)).toBeGreaterThan(Number(scale.body.metadata.resourceVersion));
    const deployment = (await call(server, 'GET', `${deployments}/web`)).body;
    expect(deployment.spec.replicas).toBe(4);
    expect(deployment.metadata.generation).toBe(2);
    expect(deployment.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'autoscaler', operation: 'Update', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }));
    await eventually(async () => expect((await call(server, 'GET', `${deployments}/web/scale`)).body.status.replicas).toBe(4));

    const stale = await call(server, 'PUT', `${deployments}/web/scale`, { ...scale.body, spec: { replicas: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ kind: 'Status', reason: 'Conflict' });
    const negative = await call(server, 'PATCH', `${deployments}/web/scale`, { spec: { replicas: -1 } }, merge);
    expect(negative.status).toBe(422);
    expect(negative.body.message).toBe('Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    const json = await call(server, 'PATCH', `${deployments}/web/scale`, [{ op: 'replace', path: '/spec/replicas', value: 1 }], { 'Content-Type': 'application/json-patch+json' });
    expect(json.body.spec.replicas).toBe(1);
    const dryRun = await call(server, 'PATCH', `${deployments}/web/scale?dryRun=All`, { spec: { replicas: 7 } }, merge);
    expect(dryRun.body.spec.replicas).toBe(7);
    expect((await call(server, 'GET', `${deployments}/web`)).body.spec.replicas).toBe(1);
    expect((await call(server, 'GET', `${deployments}/missing/scale`)).status).toBe(404);
    expect((await call(server, 'GET', '/api/v1/namespaces/default/configmaps/any/scale')).status).toBe(404);
    expect((await call(server, 'DELETE', `${deployments}/web/scale`)).status).toBe(405);
  });

  it('lists scale in discovery for workloads and for CRDs that declare it', async () => {
    const apps = await call(server, 'GET', '/apis/apps/v1');
    expect(apps.body.resources).toContainEqual({ name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    expect(apps.body.resources.map((resource: any) => resource.name)).toContain('replicasets/scale');
    const core = await call(server, 'GET', '/api/v1');
    expect(core.body.resources.map((resource: any) => resource.name)).not.toContain('configmaps/scale');
  });

  it('scales a custom resource along the paths its CRD names', async () => {
    const created = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', gadgetCrd({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' }));
    expect(created.status).toBe(201);
    expect((await call(server, 'GET', '/apis/example.com/v1')).body.resources.map((resource: any) => resource.name)).toEqual(['gadgets', 'gadgets/status', 'gadgets/scale']);
    await call(server, 'POST', gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 1 } });
    // Absent replicas read as 0: Go omits spec.replicas (omitempty) and writes status.replicas.
    expect((await call(server, 'GET', `${gadgets}/g/scale`)).body).toMatchObject({ spec: {}, status: { replicas: 0 } });
    await call(server, 'PATCH', `${gadgets}/g/status`, { status: { replicas: 2, selector: 'app=g' } }, merge);
    const scaled = await call(server, 'PATCH', `${gadgets}/g/scale`, { spec: { replicas: 3 } }, merge);
    expect(scaled.status).toBe(200);
    expect(scaled.body).toMatchObject({ kind: 'Scale', spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=g' } });
    const gadget = (await call(server, 'GET', `${gadgets}/g`)).body;
    expect(gadget.spec).toEqual({ size: 1, replicas: 3 });
    expect(gadget.metadata.generation).toBe(2);
    // The Scale's status is read-only: writing it changes nothing.
    const ignored = await call(server, 'PATCH', `${gadgets}/g/scale`, { status: { replicas: 9 } }, merge);
    expect(ignored.body.status.replicas).toBe(2);
  });

  it('refuses CRDs whose scale paths are missing or outside spec and status', async () => {
    const bad = gadgetCrd({ specReplicasPath: '.status.replicas', labelSelectorPath: '.metadata.labels' });
    bad.metadata.name = 'gizmos.example.com';
    bad.spec.names = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' };
    const refused = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', bad);
    expect(refused.status).toBe(422);
    expect(refused.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.versions[0].subresources.scale.specReplicasPath', message: 'Invalid value: ".status.replicas": should be a json path under .spec' },
      { reason: 'FieldValueRequired', field: 'spec.versions[0].subresources.scale.statusReplicasPath', message: 'Required value' },
      { reason: 'FieldValueInvalid', field: 'spec.versions[0].subresources.scale.labelSelectorPath', message: 'Invalid value: ".metadata.labels": should be a json path under either .spec or .status' },
    ]);
  });
});

import { crds } from '@olm/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, startTestServer } from './helpers.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** The real operators.coreos.com CRDs (from @olm/api) on this server. */
describe('OLM CRDs', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer();
    for (const crd of crds) {
      const response = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      expect({ name: crd.metadata.name, status: response.status, message: response.body?.message }).toEqual({ name: crd.metadata.name, status: 201, message: undefined });
    }
  });

  afterAll(async () => {
    await server.stop();
  });

  it('establishes every CRD and serves its kinds', async () => {
    for (const crd of crds) {
      await eventually(async () => {
        const stored = await call(server, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
        expect(stored.body.status.conditions.find((condition: any) => condition.type === 'Established')?.status).toBe('True');
      });
    }
    const resources = await call(server, 'GET', '/apis/operators.coreos.com/v1alpha1');
    const names = resources.body.resources.map((resource: any) => resource.name);
    expect(names).toEqual(expect.arrayContaining(['clusterserviceversions', 'clusterserviceversions/status', 'subscriptions', 'installplans', 'catalogsources']));
    const csv = resources.body.resources.find((resource: any) => resource.name === 'clusterserviceversions');
    expect(csv.shortNames).toContain('csv');
    expect(csv.categories).toContain('olm');
  });

  it('prints the upstream columns and serves OperatorGroup in v1 and v1alpha2', async () => {
    const subscriptions = '/apis/operators.coreos.com/v1alpha1/namespaces/default/subscriptions';
    const created = await call(server, 'POST', subscriptions, {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { name: 'etcd' },
      spec: { name: 'etcd', source: 'operatorhubio', sourceNamespace: 'olm', channel: 'stable' },
    });
    expect(created.status).toBe(201);
    const table = await call(server, 'GET', subscriptions, undefined, { Accept: tableAccept });
    expect(table.body.columnDefinitions.map((column: any) => column.name)).toEqual(['Name', 'Package', 'Source', 'Channel']);
    expect(table.body.rows[0].cells).toEqual(['etcd', 'etcd', 'operatorhubio', 'stable']);

    const group = await call(server, 'POST', '/apis/operators.coreos.com/v1/namespaces/default/operatorgroups', { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og' }, spec: { targetNamespaces: ['default'] } });
    expect(group.status).toBe(201);
    const alpha = await call(server, 'GET', '/apis/operators.coreos.com/v1alpha2/namespaces/default/operatorgroups/og');
    expect(alpha.body).toMatchObject({ apiVersion: 'operators.coreos.com/v1alpha2', spec: { targetNamespaces: ['default'] } });
  });

  it('validates CSVs against the real schema', async () => {
    const csvs = '/apis/operators.coreos.com/v1alpha1/namespaces/default/clusterserviceversions';
    const invalid = await call(server, 'POST', csvs, { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', metadata: { name: 'bad.v1' }, spec: { displayName: 5 } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toMatch(/^ClusterServiceVersion\.operators\.coreos\.com "bad\.v1" is invalid: /);
    expect(invalid.body.details.causes.map((cause: any) => cause.field)).toContain('spec.displayName');
  });
});

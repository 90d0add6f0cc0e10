import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer, ServedPod } from '../src/index.js';
import { call, eventually, startTestServer } from './helpers.js';

/**
 * APIService backends are dialed only where the embedded world really serves something: loopback
 * addresses, among them Pods whose image a `podImageServers` function serves. A simulated cluster IP
 * (10.96.x.y) is never dialed: it is routed to a served Pod the Service selects, as kube-proxy would, or
 * reported as kube-aggregator reports a Service without endpoints.
 */
const group = 'gadgets.example.com';

/** What a container of `example.com/gadgets:v1` runs: the group's discovery document and a list naming the Pod. */
async function gadgetsPod(pod: ServedPod): Promise<{ stop(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    response.setHeader('Content-Type', 'application/json');
    if (request.url === `/apis/${group}/v1`) {
      response.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1`, resources: [{ name: 'gizmos', singularName: 'gizmo', namespaced: true, kind: 'Gizmo', verbs: ['list'] }] }));
      return;
    }
    response.end(JSON.stringify({ apiVersion: `${group}/v1`, kind: 'GizmoList', metadata: {}, items: [], servedBy: pod.name }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(8080, pod.podIP, resolve);
  });
  return { stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

const apiServicePath = `/apis/apiregistration.k8s.io/v1/apiservices/v1.${group}`;

async function registerApiService(server: ApiServer): Promise<void> {
  const created = await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `v1.${group}` },
    spec: { group, version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'reach', name: 'gadgets', port: 80 } },
  });
  expect(created.status).toBe(201);
}

async function waitForAvailable(server: ApiServer, status: 'True' | 'False', reason: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const conditions = (await call(server, 'GET', apiServicePath)).body?.status?.conditions as Record<string, unknown>[] | undefined;
    const condition = conditions?.find((entry) => entry['type'] === 'Available');
    if (condition?.['status'] !== status || condition['reason'] !== reason) throw new Error(`Available is ${JSON.stringify(condition)}`);
    return condition;
  }, 10_000);
}

describe('APIService backends in the embedded world', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer({ apiServiceCheckIntervalMs: 200, podImageServers: { 'example.com/gadgets:v1': gadgetsPod } });
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'reach' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('reports a simulated cluster IP without a served Pod as MissingEndpoints, then routes to the Pod once it is ready', async () => {
    const service = await call(server, 'POST', '/api/v1/namespaces/reach/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'gadgets', namespace: 'reach' },
      spec: { selector: { app: 'gadgets' }, ports: [{ name: 'https', port: 80, targetPort: 'api', appProtocol: 'http' }] },
    });
    expect(service.body.spec.clusterIP).toMatch(/^10\.96\./);
    await registerApiService(server);
    const missing = await waitForAvailable(server, 'False', 'MissingEndpoints');
    expect(missing['message']).toBe('endpoints for service/gadgets in "reach" have no addresses with port name "https"');
    // the proxy answers at once rather than dialing 10.96.x.y
    const refused = await call(server, 'GET', `/apis/${group}/v1/namespaces/reach/gizmos`);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    expect(refused.body.message).toContain('endpoints for service/gadgets in "reach" have no addresses');

    // a Pod of another app, and one the server does not serve (its IP is simulated too), change nothing
    await call(server, 'POST', '/api/v1/namespaces/reach/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other', labels: { app: 'other' } }, spec: { containers: [{ name: 'main', image: 'example.com/gadgets:v1' }] } });
    await call(server, 'POST', '/api/v1/namespaces/reach/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a-unserved', labels: { app: 'gadgets' } }, spec: { containers: [{ name: 'main', image: 'example.com/plain:v1', ports: [{ name: 'api', containerPort: 8080 }] }] } });
    await eventually(async () => expect((await call(server, 'GET', '/api/v1/namespaces/reach/pods/a-unserved')).body.status.podIP).toMatch(/^10\.244\./));
    expect((await call(server, 'GET', `/apis/${group}/v1/namespaces/reach/gizmos`)).status).toBe(503);

    await call(server, 'POST', '/api/v1/namespaces/reach/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gadgets-1', labels: { app: 'gadgets' } }, spec: { containers: [{ name: 'main', image: 'example.com/gadgets:v1', ports: [{ name: 'api', containerPort: 8080 }] }] } });
    await waitForAvailable(server, 'True', 'Passed');
    const listed = await call(server, 'GET', `/apis/${group}/v1/namespaces/reach/gizmos`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ kind: 'GizmoList', servedBy: 'gadgets-1' });

    // the Pod goes: the Service has no endpoints again
    await call(server, 'DELETE', '/api/v1/namespaces/reach/pods/gadgets-1');
    await waitForAvailable(server, 'False', 'MissingEndpoints');
    await call(server, 'DELETE', apiServicePath);
    await call(server, 'DELETE', '/api/v1/namespaces/reach/services/gadgets');
  });

  it('never dials a non-loopback address, reporting the network as unreachable', async () => {
    await call(server, 'POST', '/api/v1/namespaces/reach/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'gadgets', namespace: 'reach' },
      spec: { type: 'ExternalName', externalName: '10.1.2.3', ports: [{ name: 'https', port: 80 }] },
    });
    await registerApiService(server);
    const failed = await waitForAvailable(server, 'False', 'FailedDiscoveryCheck');
    expect(failed['message']).toBe(`failing or missing response from https://10.1.2.3:80/apis/${group}/v1: dial tcp 10.1.2.3:80: connect: network is unreachable`);
    const refused = await call(server, 'GET', `/apis/${group}/v1/namespaces/reach/gizmos`);
    expect(refused.status).toBe(503);
    expect(refused.body.message).toContain('dial tcp 10.1.2.3:80: connect: network is unreachable');
    await call(server, 'DELETE', apiServicePath);
    await call(server, 'DELETE', '/api/v1/namespaces/reach/services/gadgets');
  });
});

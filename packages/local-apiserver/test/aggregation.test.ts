import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { X509Certificate } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, kubeConfigOf, openWatch, startTestServer } from './helpers.js';

/**
 * A tiny aggregated API server: `gadgets.example.com/v1` with namespaced `gizmos` (list, get and a
 * watch that sends one event), an `/echo` resource that returns the headers it received, over HTTP
 * or HTTPS.
 */
function gadgetsBackend(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://backend');
  const send = (code: number, body: unknown) => {
    response.writeHead(code, { 'Content-Type': 'application/json', 'X-Backend': 'gadgets' });
    response.end(JSON.stringify(body));
  };
  if (url.pathname === '/apis/gadgets.example.com/v1') {
    send(200, {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'gadgets.example.com/v1',
      resources: [
        { name: 'gizmos', singularName: 'gizmo', namespaced: true, kind: 'Gizmo', verbs: ['get', 'list', 'watch'] },
        { name: 'echoes', singularName: 'echo', namespaced: true, kind: 'Echo', verbs: ['get'] },
      ],
    });
    return;
  }
  if (url.pathname === '/openapi/v3/apis/gadgets.example.com/v1') {
    const gvk = { group: 'gadgets.example.com', version: 'v1', kind: 'Gizmo' };
    send(200, { openapi: '3.0.0', paths: {}, components: { schemas: { 'com.example.gadgets.v1.Gizmo': { type: 'object', 'x-kubernetes-group-version-kind': [gvk] } } } });
    return;
  }
  const gizmo = (name: string, namespace: string) => ({ apiVersion: 'gadgets.example.com/v1', kind: 'Gizmo', metadata: { name, namespace, resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' } });
  const match = /^\/apis\/gadgets\.example\.com\/v1\/namespaces\/([^/]+)\/(gizmos|echoes)(?:\/([^/]+))?$/.exec(url.pathname);
  if (!match) {
    send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
    return;
  }
  const [, namespace = '', resource, name] = match;
  if (resource === 'echoes') {
    send(200, { apiVersion: 'gadgets.example.com/v1', kind: 'Echo', metadata: { name, namespace }, headers: request.headers, method: request.method, query: url.search });
    return;
  }
  if (url.searchParams.get('watch') === 'true') {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    response.flushHeaders();
    response.write(`${JSON.stringify({ type: 'ADDED', object: gizmo('g1', namespace) })}\n`);
    return; // stays open, as a watch does
  }
  if (name !== undefined) send(200, gizmo(name, namespace));
  else send(200, { apiVersion: 'gadgets.example.com/v1', kind: 'GizmoList', metadata: { resourceVersion: '7' }, items: [gizmo('g1', namespace), gizmo('g2', namespace)] });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** A certificate for the backend's Service DNS name, made with the openssl CLI (as the server's own TLS is). */
function certificateFor(names: string[]): { cert: string; key: string } {
  const directory = mkdtempSync(join(tmpdir(), 'olm-aggregation-tls-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'cert.pem'), '-days', '1', '-subj', `/CN=${names[0]}`, '-addext', `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}`],
      { stdio: 'pipe' },
    );
    return { cert: readFileSync(join(directory, 'cert.pem'), 'utf8'), key: readFileSync(join(directory, 'key.pem'), 'utf8') };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function apiService(spec: Record<string, unknown>) {
  return { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.gadgets.example.com' }, spec: { group: 'gadgets.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, ...spec } };
}

function externalService(port: number, appProtocol?: string) {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gadgets', namespace: 'agg' }, spec: { type: 'ExternalName', externalName: '127.0.0.1', ports: [{ name: 'api', port, ...(appProtocol ? { appProtocol } : {}) }] } };
}

async function available(server: ApiServer): Promise<Record<string, unknown> | undefined> {
  const response = await call(server, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.gadgets.example.com');
  return (response.body?.status?.conditions as Record<string, unknown>[] | undefined)?.find((condition) => condition['type'] === 'Available');
}

async function waitForAvailable(server: ApiServer, status: 'True' | 'False', reason: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const condition = await available(server);
    if (condition?.['status'] !== status || condition['reason'] !== reason) throw new Error(`Available is ${JSON.stringify(condition)}`);
    return condition;
  }, 10_000);
}

describe('APIService aggregation', () => {
  let server: ApiServer;
  let backend: Server | undefined;

  beforeAll(async () => {
    server = await startTestServer({ apiServiceCheckIntervalMs: 200, tls: true });
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'agg' } });
  });

  afterEach(async () => {
    await call(server, 'DELETE', '/apis/apiregistration.k8s.io/v1/apiservices/v1.gadgets.example.com');
    await call(server, 'DELETE', '/api/v1/namespaces/agg/services/gadgets');
    await close(backend);
    backend = undefined;
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('proxies the group to a plain-HTTP backend behind an ExternalName Service and lists it in discovery', async () => {
    backend = createHttpServer(gadgetsBackend);
    const port = await listen(backend);
    expect((await call(server, 'POST', '/api/v1/namespaces/agg/services', externalService(port, 'http'))).status).toBe(201);
    expect((await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port } }))).status).toBe(201);

    const groups = await call(server, 'GET', '/apis');
    expect(groups.body.groups).toContainEqual({ name: 'gadgets.example.com', versions: [{ groupVersion: 'gadgets.example.com/v1', version: 'v1' }], preferredVersion: { groupVersion: 'gadgets.example.com/v1', version: 'v1' } });
    expect((await call(server, 'GET', '/apis/gadgets.example.com')).body).toMatchObject({ kind: 'APIGroup', name: 'gadgets.example.com', preferredVersion: { version: 'v1' } });
    const resources = await call(server, 'GET', '/apis/gadgets.example.com/v1');
    expect(resources.headers.get('x-backend')).toBe('gadgets');
    expect(resources.body.resources.map((resource: { name: string }) => resource.name)).toEqual(['gizmos', 'echoes']);
    const list = await call(server, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/gizmos?limit=5');
    expect(list.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['g1', 'g2']);
    expect((await call(server, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/nothing')).status).toBe(404);

    const condition = await waitForAvailable(server, 'True', 'Passed');
    expect(condition['message']).toBe('all checks passed');
  });

  it('lists the aggregated group-version in /openapi/v3 and serves its document from the backend', async () => {
    backend = createHttpServer(gadgetsBackend);
    const port = await listen(backend);
    await call(server, 'POST', '/api/v1/namespaces/agg/services', externalService(port, 'http'));
    const before = (await call(server, 'GET', '/openapi/v3')).body.paths;
    expect(before['apis/gadgets.example.com/v1']).toBeUndefined();
    expect(before['api/v1']).toBeDefined();
    await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port } }));

    const paths = (await call(server, 'GET', '/openapi/v3')).body.paths;
    expect(paths['api/v1']).toEqual(before['api/v1']);
    const url: string = paths['apis/gadgets.example.com/v1'].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/gadgets\.example\.com\/v1\?hash=[0-9A-F]+$/);
    const document = await call(server, 'GET', url);
    expect(document.headers.get('x-backend')).toBe('gadgets');
    expect(document.body.components.schemas['com.example.gadgets.v1.Gizmo']['x-kubernetes-group-version-kind']).toEqual([{ group: 'gadgets.example.com', version: 'v1', kind: 'Gizmo' }]);
    // Local group-versions are still served here.
    expect((await call(server, 'GET', '/openapi/v3/api/v1')).status).toBe(200);

    await call(server, 'DELETE', '/apis/apiregistration.k8s.io/v1/apiservices/v1.gadgets.example.com');
    expect((await call(server, 'GET', '/openapi/v3')).body.paths['apis/gadgets.example.com/v1']).toBeUndefined();
    expect((await call(server, 'GET', '/openapi/v3/apis/gadgets.example.com/v1')).status).toBe(404);
  });

  it('routes a ClusterIP Service to its clusterIP and listed port (an explicit 127.0.0.1 here)', async () => {
    backend = createHttpServer(gadgetsBackend);
    const port = await listen(backend);
    const created = await call(server, 'POST', '/api/v1/namespaces/agg/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gadgets', namespace: 'agg' }, spec: { clusterIP: '127.0.0.1', ports: [{ port, appProtocol: 'http' }] } });
    expect(created.body.spec).toMatchObject({ type: 'ClusterIP', clusterIP: '127.0.0.1' });
    await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port } }));
    expect((await call(server, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/gizmos')).body.kind).toBe('GizmoList');
    await waitForAvailable(server, 'True', 'Passed');
  });

  it('reaches an HTTPS backend, verifying it against caBundle for <service>.<namespace>.svc, or not at all with insecureSkipTLSVerify', async () => {
    const tls = certificateFor(['gadgets.agg.svc']);
    backend = createHttpsServer(tls, gadgetsBackend);
    const port = await listen(backend);
    await call(server, 'POST', '/api/v1/namespaces/agg/services', externalService(port));
    await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port }, caBundle: Buffer.from(tls.cert).toString('base64') }));
    await waitForAvailable(server, 'True', 'Passed');
    expect((await call(server, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/gizmos/g9')).body.metadata).toMatchObject({ name: 'g9', namespace: 'agg' });

    // A CA that did not sign the certificate: the check fails, and so do proxied requests.
    const other = certificateFor(['someone-else.agg.svc']);
    await call(server, 'PATCH', '/apis/apiregistration.k8s.io/v1/apiservices/v1.gadgets.example.com', { spec: { caBundle: Buffer.from(other.cert).toString('base64') } }, { 'Content-Type': 'application/merge-patch+json' });
    const failed = await waitForAvailable(server, 'False', 'FailedDiscoveryCheck');
    expect(failed['message']).toMatch(new RegExp(`^failing or missing response from https://127\\.0\\.0\\.1:${port}/apis/gadgets\\.example\\.com/v1: .*(certificate|self-signed|self signed)`));
    const refused = await call(server, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/gizmos');
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503, message: expect.stringMatching(/^error trying to reach service: /) });

    await call(server, 'PATCH', '/apis/apiregistration.k8s.io/v1/apiservices/v1.gadgets.example.com', { spec: { caBundle: null, insecureSkipTLSVerify: true } }, { 'Content-Type': 'application/merge-patch+json' });
    await waitForAvailable(server, 'True', 'Passed');
    expect((await call(server, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/gizmos')).status).toBe(200);
  });

  it('says why an APIService is unavailable: missing Service, unlisted port, backend down; Local ones are available', async () => {
    await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port: 8443 } }));
    expect((await waitForAvailable(server, 'False', 'ServiceNotFound'))['message']).toBe('service/gadgets in "agg" is not present');
    expect((await call(server, 'GET', '/apis/gadgets.example.com/v1')).status).toBe(503);

    await call(server, 'POST', '/api/v1/namespaces/agg/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gadgets', namespace: 'agg' }, spec: { ports: [{ port: 9000 }] } });
    expect((await waitForAvailable(server, 'False', 'ServicePortError'))['message']).toBe('service/gadgets in "agg" is not listening on port 8443');

    await call(server, 'DELETE', '/api/v1/namespaces/agg/services/gadgets');
    backend = createHttpServer(gadgetsBackend);
    const port = await listen(backend);
    await close(backend);
    backend = undefined;
    await call(server, 'POST', '/api/v1/namespaces/agg/services', externalService(port, 'http'));
    await call(server, 'PATCH', '/apis/apiregistration.k8s.io/v1/apiservices/v1.gadgets.example.com', { spec: { service: { namespace: 'agg', name: 'gadgets', port } } }, { 'Content-Type': 'application/merge-patch+json' });
    expect((await waitForAvailable(server, 'False', 'FailedDiscoveryCheck'))['message']).toMatch(/ECONNREFUSED/);

    // The backend comes up: the periodic check notices without any change to the objects.
    backend = createHttpServer(gadgetsBackend);
    await new Promise<void>((resolve) => backend!.listen(port, '127.0.0.1', resolve));
    await waitForAvailable(server, 'True', 'Passed');

    await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.local.example.com' }, spec: { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } });
    await eventually(async () => {
      const local = await call(server, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.local.example.com');
      expect(local.body.status.conditions).toContainEqual(expect.objectContaining({ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' }));
    });
    // A Local APIService is not a group of its own: nothing serves it.
    expect((await call(server, 'GET', '/apis')).body.groups.map((group: { name: string }) => group.name)).not.toContain('local.example.com');
    await call(server, 'DELETE', '/apis/apiregistration.k8s.io/v1/apiservices/v1.local.example.com');
  });

  it('gives up on a backend that accepts connections but never completes the TLS handshake', async () => {
    const silentSockets = new Set<Socket>();
    const silent = createNetServer((socket) => {
      silentSockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      await call(server, 'POST', '/api/v1/namespaces/agg/services', externalService(port));
      await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port }, insecureSkipTLSVerify: true }));
      const answer = await call(server, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/gizmos');
      expect(answer.status).toBe(503);
      expect(answer.body.message).toBe(`error trying to reach service: dial tcp 127.0.0.1:${port}: i/o timeout (no TLS handshake within 5000 ms)`);
      expect((await waitForAvailable(server, 'False', 'FailedDiscoveryCheck'))['message']).toMatch(/Client\.Timeout exceeded while awaiting headers/);
    } finally {
      for (const socket of silentSockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 20_000);

  it('streams proxied watches and ends them when the server stops', async () => {
    const own = await startTestServer({ apiServiceCheckIntervalMs: 200 });
    const watchBackend = createHttpServer(gadgetsBackend);
    try {
      const port = await listen(watchBackend);
      await call(own, 'POST', '/api/v1/namespaces', { metadata: { name: 'agg' } });
      await call(own, 'POST', '/api/v1/namespaces/agg/services', externalService(port, 'http'));
      await call(own, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port } }));
      const watch = openWatch(own, '/apis/gadgets.example.com/v1/namespaces/agg/gizmos?watch=true');
      const events = await watch.waitFor(1);
      expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'g1' } } });
      await own.stop();
      await watch.done;
    } finally {
      await own.stop();
      await close(watchBackend);
    }
  });

  it('does not forward the client\'s credentials to the backend', async () => {
    const guarded = await startTestServer({ token: 'secret-token' });
    const echo = createHttpServer(gadgetsBackend);
    try {
      const port = await listen(echo);
      const headers = { Authorization: 'Bearer secret-token' };
      await call(guarded, 'POST', '/api/v1/namespaces', { metadata: { name: 'agg' } }, headers);
      await call(guarded, 'POST', '/api/v1/namespaces/agg/services', externalService(port, 'http'), headers);
      await call(guarded, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port } }), headers);
      expect((await call(guarded, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/echoes/e1', undefined, { Authorization: '' })).status).toBe(403);
      const echoed = await call(guarded, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/echoes/e1?pretty=true', undefined, { ...headers, 'X-Custom': 'kept' });
      expect(echoed.status).toBe(200);
      expect(echoed.body.headers.authorization).toBeUndefined();
      expect(echoed.body.headers['x-custom']).toBe('kept');
      expect(echoed.body.headers['x-forwarded-for']).toMatch(/127\.0\.0\.1/);
      expect(echoed.body.query).toBe('?pretty=true');
    } finally {
      await guarded.stop();
      await close(echo);
    }
  });

  it('names the user to an HTTPS backend with the front-proxy client certificate, as kube-aggregator; forged X-Remote-* headers are dropped', async () => {
    const configMap = (await call(server, 'GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).body;
    expect(configMap.data).toMatchObject({
      'requestheader-allowed-names': '["front-proxy-client"]',
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    });
    const frontProxyCa = new X509Certificate(configMap.data['requestheader-client-ca-file']);
    const reader = (await call(server, 'GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/extension-apiserver-authentication-reader')).body;
    expect(reader.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'], verbs: ['get', 'list', 'watch'] }]);

    const tls = certificateFor(['gadgets.agg.svc']);
    const seen: { headers: IncomingMessage['headersDistinct']; client: string; signedByFrontProxyCa: boolean }[] = [];
    backend = createHttpsServer({ ...tls, requestCert: true, rejectUnauthorized: false }, (request, response) => {
      const peer = (request.socket as TLSSocket).getPeerX509Certificate();
      seen.push({ headers: request.headersDistinct, client: peer?.subject ?? '', signedByFrontProxyCa: peer !== undefined && peer.checkIssued(frontProxyCa) && peer.verify(frontProxyCa.publicKey) });
      gadgetsBackend(request, response);
    });
    const port = await listen(backend);
    await call(server, 'POST', '/api/v1/namespaces/agg/services', externalService(port));
    await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port }, caBundle: Buffer.from(tls.cert).toString('base64') }));
    await waitForAvailable(server, 'True', 'Passed');
    // The availability check, as kube-aggregator's: system:kube-aggregator in system:masters.
    expect(seen[0]).toMatchObject({ client: 'CN=front-proxy-client', signedByFrontProxyCa: true, headers: { 'x-remote-user': ['system:kube-aggregator'], 'x-remote-group': ['system:masters'] } });

    const forged = { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scopes': 'everything' };
    expect((await call(server, 'GET', '/apis/gadgets.example.com/v1/namespaces/agg/gizmos/g1', undefined, forged)).status).toBe(200);
    const proxied = seen.at(-1);
    expect(proxied).toMatchObject({ client: 'CN=front-proxy-client', signedByFrontProxyCa: true });
    expect(proxied?.headers['x-remote-user']).toEqual(['kubernetes-admin']);
    // One header line per group, as Go's request-header authenticator reads them.
    expect(proxied?.headers['x-remote-group']).toEqual(['system:masters', 'system:authenticated']);
    expect(proxied?.headers['x-remote-extra-scopes']).toBeUndefined();
  });

  it('serves the aggregated group to kubectl and client-node', async () => {
    backend = createHttpServer(gadgetsBackend);
    const port = await listen(backend);
    await call(server, 'POST', '/api/v1/namespaces/agg/services', externalService(port, 'http'));
    await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService({ service: { namespace: 'agg', name: 'gadgets', port } }));
    await waitForAvailable(server, 'True', 'Passed');

    const config = kubeConfigOf(server);
    const list = (await config.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({ group: 'gadgets.example.com', version: 'v1', namespace: 'agg', plural: 'gizmos' })) as { items: { metadata: { name: string } }[] };
    expect(list.items.map((item) => item.metadata.name)).toEqual(['g1', 'g2']);

    const kubectl = process.env['KUBECTL'] ?? 'kubectl';
    let hasKubectl = true;
    try {
      execFileSync(kubectl, ['version', '--client'], { stdio: 'ignore' });
    } catch {
      hasKubectl = false;
    }
    if (!hasKubectl) return;
    const workDir = mkdtempSync(join(tmpdir(), 'olm-aggregation-kubectl-'));
    try {
      const env = { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: join(workDir, 'cache'), HOME: workDir };
      const run = (args: string[]) =>
        new Promise<{ stdout: string; stderr: string }>((resolve) => execFile(kubectl, args, { env, timeout: 20_000 }, (_error, stdout, stderr) => resolve({ stdout, stderr })));
      const got = await run(['get', 'gizmos', '-n', 'agg', '-o', 'name']);
      expect(got.stderr).toBe('');
      expect(got.stdout.trim().split('\n')).toEqual(['gizmo.gadgets.example.com/g1', 'gizmo.gadgets.example.com/g2']);
      const apis = await run(['api-resources', '--api-group', 'gadgets.example.com', '--no-headers']);
      expect(apis.stdout).toMatch(/^gizmos\s+gadgets\.example\.com\/v1\s+true\s+Gizmo$/m);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });
});

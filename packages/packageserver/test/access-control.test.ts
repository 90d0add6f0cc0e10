import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '@olm/controller-runtime';
import { renderKubeconfig } from '@olm/local-apiserver';
import { loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { startTestCluster, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageServerApiServiceName, selfSignedCertificate, startPackageServer, type PackageServer } from '../src/index.js';
import { builtInSourceTypes, createNamespace, eventually, exampleCatalogDir, grpcCatalogSource, kubectlAvailable, kubectlFor, type Json } from './helpers.js';

const hasKubectl = kubectlAvailable();

interface Answer {
  status: number;
  body: Json;
}

const aliceToken = 'alice-token-without-any-rbac';
const bobToken = 'bob-token-who-may-read-packagemanifests-in-team-a';
const listPath = '/apis/packages.operators.coreos.com/v1/namespaces/team-a/packagemanifests';

/**
 * The packageserver as an aggregated API server: it authenticates callers (front-proxy client
 * certificate and X-Remote-* headers, else a bearer token reviewed with a TokenReview) and
 * authorizes them with SubjectAccessReviews against the real local API server, directly on its port
 * and behind the API server's aggregation layer.
 */
describe('packageserver access control', () => {
  let cluster: TestCluster;
  let registry: RegistryServer;
  let packageServer: PackageServer;
  let directory: string;

  /** A raw HTTPS request to the packageserver's own port. */
  const direct = (path: string, options: { headers?: Record<string, string>; cert?: string; key?: string } = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const request = httpsRequest(`${packageServer.url}${path}`, { ca: packageServer.caBundle, servername: 'localhost', headers: options.headers ?? {}, ...(options.cert ? { cert: options.cert, key: options.key } : {}) }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: response.statusCode ?? 0, body: (response.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : text });
        });
      });
      request.on('error', reject);
      request.end();
    });
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  const kubeconfigFor = (token: string): string => {
    const path = join(directory, `${token}.kubeconfig`);
    writeFileSync(path, renderKubeconfig({ server: cluster.server.url, certificateAuthority: cluster.server.caCertificate ?? '', token, namespace: 'team-a' }), { mode: 0o600 });
    return path;
  };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'olm-packageserver-access-'));
    cluster = await startTestCluster({
      tls: true,
      apiServiceCheckIntervalMs: 500,
      requestTimeoutMs: 20_000,
      namespaces: ['olm', 'team-a'],
      users: [
        { token: aliceToken, name: 'alice' },
        { token: bobToken, name: 'bob' },
      ],
    });
    const { client } = cluster;
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'packagemanifest-reader', namespace: 'team-a' },
      rules: [{ apiGroups: ['packages.operators.coreos.com'], resources: ['packagemanifests'], verbs: ['get', 'list', 'watch'] }],
    });
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'bob-reads-packagemanifests', namespace: 'team-a' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'packagemanifest-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
    });
    registry = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port: 0 });
    await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
    packageServer = await startPackageServer({ catalogSourceTypes: builtInSourceTypes, client, globalNamespace: 'olm', register: { namespace: 'olm' } });
    await packageServer.waitForSync(30_000);
    await eventually(async () => {
      const apiService = await client.get<Json>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: packageServerApiServiceName });
      return apiService.status?.conditions?.find((condition: Json) => condition.type === 'Available' && condition.status === 'True');
    }, { timeoutMs: 15_000, message: 'the APIService to become Available' });
  }, 60_000);

  afterAll(async () => {
    await packageServer?.stop();
    await registry?.stop();
    await cluster?.stop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('answers a request without credentials 401 Unauthorized, as kube does, discovery and OpenAPI included', async () => {
    const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
    for (const path of [listPath, '/apis', '/apis/packages.operators.coreos.com/v1', '/openapi/v3']) {
      expect(await direct(path), path).toEqual({ status: 401, body: unauthorized });
    }
    expect(await direct(listPath, { headers: bearer('no-such-token') })).toEqual({ status: 401, body: unauthorized });
  });

  it('serves health to anyone, as kube\'s --authorization-always-allow-paths defaults', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) expect(await direct(path), path).toEqual({ status: 200, body: 'ok' });
  });

  it('refuses a Host header that does not name the server, as the embedded API server does', async () => {
    const answer = await direct(listPath, { headers: { ...bearer(bobToken), Host: `evil.example:${packageServer.port}` } });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(answer.body.message).toContain('the Host header "evil.example:');
    expect((await direct('/healthz', { headers: { Host: 'evil.example' } })).status).toBe(403);
  });

  it('answers a user without RBAC 403 with kube\'s message, and one with RBAC 200 (TokenReview, then SubjectAccessReview)', async () => {
    const refused = await direct(listPath, { headers: bearer(aliceToken) });
    expect(refused).toEqual({
      status: 403,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'packagemanifests.packages.operators.coreos.com is forbidden: User "alice" cannot list resource "packagemanifests" in API group "packages.operators.coreos.com" in the namespace "team-a"',
        reason: 'Forbidden',
        details: { name: '', group: 'packages.operators.coreos.com', kind: 'packagemanifests' },
        code: 403,
      },
    });
    const icon = await direct('/apis/packages.operators.coreos.com/v1/namespaces/other/packagemanifests/acme-database/icon', { headers: bearer(bobToken) });
    expect(icon.body.message).toBe(
      'packagemanifests.packages.operators.coreos.com "acme-database" is forbidden: User "bob" cannot get resource "packagemanifests/icon" in API group "packages.operators.coreos.com" in the namespace "other"',
    );
    const allowed = await direct(listPath, { headers: bearer(bobToken) });
    expect(allowed.status).toBe(200);
    expect(allowed.body.items.map((item: Json) => item.metadata.name)).toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
  });

  it('does not trust X-Remote-User headers without the front-proxy client certificate', async () => {
    const forged = { 'X-Remote-User': 'kubernetes-admin', 'X-Remote-Group': 'system:masters' };
    expect((await direct(listPath, { headers: forged })).status).toBe(401);
    // With a token, the token's user is who asks: the headers name nobody.
    const asAlice = await direct(listPath, { headers: { ...forged, ...bearer(aliceToken) } });
    expect(asAlice.status).toBe(403);
    expect(asAlice.body.message).toContain('User "alice" cannot list');
    // A client certificate with the right name but not signed by the request-header CA is not trusted either.
    const impostor = await selfSignedCertificate({ hosts: ['front-proxy-client'], commonName: 'front-proxy-client' });
    expect((await direct(listPath, { headers: forged, cert: impostor.cert, key: impostor.key })).status).toBe(401);
  });

  it('through the aggregator, a real client lists as an authorized user and gets 403 as an unauthorized one', async () => {
    const clientFor = (token: string) => {
      const config = new KubeConfig();
      config.loadFromFile(kubeconfigFor(token));
      return config.makeApiClient(CustomObjectsApi);
    };
    const listed = (await clientFor(bobToken).listNamespacedCustomObject({ group: 'packages.operators.coreos.com', version: 'v1', namespace: 'team-a', plural: 'packagemanifests' })) as Json;
    expect(listed.items.map((item: Json) => item.metadata.name)).toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
    await expect(clientFor(aliceToken).listNamespacedCustomObject({ group: 'packages.operators.coreos.com', version: 'v1', namespace: 'team-a', plural: 'packagemanifests' })).rejects.toMatchObject({ code: 403 });
    // Bob's list passed because the aggregator named him with its front-proxy certificate; the admin (system:masters) passes the same way.
    const admin = new KubeClient({ kubeconfig: cluster.server.kubeconfig });
    try {
      expect(((await admin.request({ method: 'GET', path: listPath })) as Json).items).toHaveLength(3);
    } finally {
      admin.close();
    }
  });

  it.skipIf(!hasKubectl)('kubectl through the aggregator: works for an authorized user, Forbidden for an unauthorized one', async () => {
    const asBob = kubectlFor(kubeconfigFor(bobToken));
    const asAlice = kubectlFor(kubeconfigFor(aliceToken));
    try {
      const listed = await asBob.run(['get', 'packagemanifests', '-n', 'team-a', '-o', 'name']);
      expect(listed.stderr).toBe('');
      expect(listed.stdout.trim().split('\n')).toEqual(['packagemanifest.packages.operators.coreos.com/acme-backup', 'packagemanifest.packages.operators.coreos.com/acme-database', 'packagemanifest.packages.operators.coreos.com/acme-monitoring']);
      const refused = await asAlice.run(['get', 'packagemanifests', '-n', 'team-a']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('User "alice" cannot list resource "packagemanifests" in API group "packages.operators.coreos.com" in the namespace "team-a"');
    } finally {
      asBob.close();
      asAlice.close();
    }
  });
});

describe('packageserver access control options', () => {
  const get = (server: PackageServer, path: string, headers: Record<string, string> = {}) =>
    new Promise<Answer & { retryAfter: string | undefined }>((resolve, reject) => {
      httpsRequest(`${server.url}${path}`, { ca: server.caBundle, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), retryAfter: response.headers['retry-after'] }));
      })
        .on('error', reject)
        .end();
    });

  it('with maxPendingReviews exhausted, answers 429 at once naming the option instead of queueing reviews', async () => {
    const cluster = await startTestCluster({ tls: true, namespaces: ['olm'] });
    const server = await startPackageServer({ catalogSourceTypes: builtInSourceTypes, client: cluster.client, access: { maxPendingReviews: 0 } });
    try {
      const answer = await get(server, listPath, { Authorization: `Bearer ${cluster.server.token}` });
      expect(answer.status).toBe(429);
      expect(answer.retryAfter).toBe('1');
      expect(answer.body).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 1 } });
      expect(answer.body.message).toContain('limit 0, option maxPendingReviews');
    } finally {
      await server.stop();
      await cluster.stop();
    }
  });

  it('with anonymous on, authorizes a request without credentials as system:anonymous (403 unless RBAC allows it)', async () => {
    const cluster = await startTestCluster({ tls: true, namespaces: ['olm'] });
    const server = await startPackageServer({ catalogSourceTypes: builtInSourceTypes, client: cluster.client, access: { anonymous: true } });
    try {
      const { retryAfter: _retryAfter, ...answer } = await get(server, '/apis');
      expect(answer).toEqual({
        status: 403,
        body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden: User "system:anonymous" cannot get path "/apis"', reason: 'Forbidden', details: {}, code: 403 },
      });
    } finally {
      await server.stop();
      await cluster.stop();
    }
  });
});

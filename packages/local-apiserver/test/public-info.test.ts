import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, startTestServer } from './helpers.js';

/**
 * kube-apiserver answers `/healthz`, `/livez`, `/readyz` and `/version` to anyone: the bootstrap
 * ClusterRole `system:public-info-viewer` is bound to `system:unauthenticated` and
 * `system:authenticated`, and anonymous requests are on by default. Over HTTPS, as clusters serve.
 */
describe('public info for anonymous clients', () => {
  let server: ApiServer;
  const anonymous = { Authorization: '' };
  beforeAll(async () => {
    server = await startTestServer({ tls: true });
  });
  afterAll(() => server?.stop());

  it('answers the health endpoints and /version without a credential, verbose too', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/healthz?exclude=etcd']) {
      const response = await call(server, 'GET', path, undefined, anonymous);
      expect({ path, status: response.status, text: response.text }).toEqual({ path, status: 200, text: 'ok' });
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    }
    const verbose = await call(server, 'GET', '/readyz?verbose', undefined, anonymous);
    expect(verbose.status).toBe(200);
    expect(verbose.text).toBe('[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n');
    const excluded = await call(server, 'GET', '/livez?verbose&exclude=etcd', undefined, anonymous);
    expect(excluded.text).toBe('[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\nlivez check passed\n');
    for (const path of ['/version', '/version/']) {
      const version = await call(server, 'GET', path, undefined, anonymous);
      expect(version.status).toBe(200);
      expect(version.body.gitVersion).toMatch(/^v1\.\d+\.\d+/);
    }
  });

  it('refuses individual checks and everything else to anonymous clients with 403, as the role grants only those paths', async () => {
    for (const path of ['/healthz/ping', '/livez/etcd', '/readyz/shutdown', '/api', '/apis', '/openapi/v2']) {
      const response = await call(server, 'GET', path, undefined, anonymous);
      expect({ path, status: response.status }).toEqual({ path, status: 403 });
      expect(response.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: `forbidden: User "system:anonymous" cannot get path "${path}"` });
    }
    expect((await call(server, 'POST', '/healthz', '{}', anonymous)).status).toBe(403);
  });

  it('answers individual checks to the admin, and 404 for a check that does not exist', async () => {
    expect((await call(server, 'GET', '/healthz/ping')).text).toBe('ok');
    expect((await call(server, 'GET', '/readyz/informer-sync')).text).toBe('ok');
    const missing = await call(server, 'GET', '/livez/no-such-check');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  it('follows RBAC: without the system:public-info-viewer binding anonymous clients get 403 there too', async () => {
    const binding = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:public-info-viewer';
    const saved = await call(server, 'GET', binding);
    expect(saved.body.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:unauthenticated' },
    ]);
    expect((await call(server, 'DELETE', binding)).status).toBe(200);
    try {
      const refused = await call(server, 'GET', '/healthz', undefined, anonymous);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe('forbidden: User "system:anonymous" cannot get path "/healthz"');
    } finally {
      const { metadata, ...rest } = saved.body;
      expect((await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { ...rest, metadata: { name: metadata.name, labels: metadata.labels, annotations: metadata.annotations } })).status).toBe(201);
    }
    expect((await call(server, 'GET', '/healthz', undefined, anonymous)).status).toBe(200);
  });
});

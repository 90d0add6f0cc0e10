import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthenticationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JwtSigner } from '../src/auth/jwt-signer.js';
import type { ApiServer } from '../src/index.js';
import { callAs, kubeConfigFor, serviceAccountToken, whoami } from './auth-clients.js';
import { call, eventually, startTestServer } from './helpers.js';

const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

/** The claims of a JWT, unverified. */
function claimsOf(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, any>;
}

describe('authentication', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer({ users: [{ token: 'alice-token', name: 'alice', uid: 'alice-uid', groups: ['developers'] }] });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers 401 Unauthorized to a wrong token on every path, public ones included', async () => {
    for (const path of ['/api/v1/namespaces', '/api', '/apis', '/version', '/healthz', '/readyz', '/openapi/v3', '/openapi/v2', '/apis/authorization.k8s.io/v1', '/no/such/path']) {
      for (const authorization of ['Bearer wrong-token', `Bearer ${server.token}x`, 'bearer x']) {
        const response = await call(server, 'GET', path, undefined, { Authorization: authorization });
        expect({ path, authorization, status: response.status }).toEqual({ path, authorization, status: 401 });
        expect(response.body).toEqual(unauthorized);
      }
    }
    const write = await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'sneaky' } }, { Authorization: 'Bearer guessed' });
    expect(write.status).toBe(401);
    expect((await call(server, 'GET', '/api/v1/namespaces/sneaky')).status).toBe(404);
  });

  it('treats a request without a token as system:anonymous, whom RBAC refuses everything but public info (403)', async () => {
    for (const authorization of ['', 'Basic YWRtaW46YWRtaW4=', 'Bearer ', 'bearer']) {
      for (const path of ['/api', '/apis', '/openapi/v3', '/no/such/path', '/healthz/ping']) {
        const response = await call(server, 'GET', path, undefined, { Authorization: authorization });
        expect({ path, authorization, status: response.status, message: response.body?.message }).toEqual({
          path,
          authorization,
          status: 403,
          message: `forbidden: User "system:anonymous" cannot get path "${path}"`,
        });
      }
      const list = await call(server, 'GET', '/api/v1/namespaces', undefined, { Authorization: authorization });
      expect(list.status).toBe(403);
      expect(list.body.message).toBe('namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
      for (const path of ['/version', '/healthz', '/livez', '/readyz']) expect((await call(server, 'GET', path, undefined, { Authorization: authorization })).status).toBe(200);
    }
    const write = await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'sneaky' } }, { Authorization: '' });
    expect(write.status).toBe(403);
    expect((await call(server, 'GET', '/api/v1/namespaces/sneaky')).status).toBe(404);
  });

  it('answers 401 to every request without a token with anonymousAuth: false (kube-apiserver --anonymous-auth=false)', async () => {
    const strict = await startTestServer({ anonymousAuth: false });
    try {
      for (const path of ['/api/v1/namespaces', '/version', '/healthz', '/readyz', '/livez']) {
        const response = await call(strict, 'GET', path, undefined, { Authorization: '' });
        expect({ path, status: response.status }).toEqual({ path, status: 401 });
        expect(response.body).toEqual(unauthorized);
      }
    } finally {
      await strict.stop();
    }
  });

  it('knows the admin token (kubeconfig) as kubernetes-admin in system:masters, the scheme in any case', async () => {
    expect(server.kubeconfig).toContain(`token: ${server.token}`);
    expect(await whoami(server, server.token)).toEqual({ username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
    expect((await call(server, 'GET', '/api/v1/namespaces', undefined, { Authorization: `bEaReR ${server.token}` })).status).toBe(200);
  });

  it('knows static token users, in system:authenticated', async () => {
    expect(await whoami(server, 'alice-token')).toEqual({ username: 'alice', uid: 'alice-uid', groups: ['developers', 'system:authenticated'] });
  });

  it('issues ServiceAccount tokens (TokenRequest) that authenticate as the account, for an hour by default', async () => {
    const token = await serviceAccountToken(server, 'default', 'robot');
    const claims = claimsOf(token);
    expect(claims.sub).toBe('system:serviceaccount:default:robot');
    expect(claims.aud).toEqual(['https://kubernetes.default.svc.cluster.local']);
    expect(claims.exp - claims.iat).toBe(3600);
    const uid = (await call(server, 'GET', '/api/v1/namespaces/default/serviceaccounts/robot')).body.metadata.uid as string;
    expect(claims['kubernetes.io']).toEqual({ namespace: 'default', serviceaccount: { name: 'robot', uid } });
    expect(await whoami(server, token)).toEqual({
      username: 'system:serviceaccount:default:robot',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti as string}`] },
    });
  });

  it('validates TokenRequests as kube-apiserver', async () => {
    const path = '/api/v1/namespaces/default/serviceaccounts/robot/token';
    const short = await call(server, 'POST', path, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 60 } });
    expect(short.status).toBe(422);
    expect(short.body.message).toBe('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
    const missing = await call(server, 'POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', { spec: {} });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('serviceaccounts "nobody" not found');
    const get = await call(server, 'GET', path);
    expect(get.status).toBe(405);
    const long = await call(server, 'POST', path, { spec: { expirationSeconds: 7200, audiences: ['vault'] } });
    expect(long.status).toBe(201);
    expect(long.body.spec).toMatchObject({ expirationSeconds: 7200, audiences: ['vault'] });
    const expiry = Date.parse(long.body.status.expirationTimestamp as string);
    expect(Math.abs(expiry - (Date.now() + 7200_000))).toBeLessThan(60_000);
  });

  it('refuses a token issued for another audience, which TokenReview accepts for that audience', async () => {
    const token = await serviceAccountToken(server, 'default', 'robot', { audiences: ['vault'] });
    expect((await callAs(server, token, 'GET', '/version')).status).toBe(401);
    const reviews = kubeConfigFor(server, server.token).makeApiClient(AuthenticationV1Api);
    const forVault = await reviews.createTokenReview({ body: { spec: { token, audiences: ['vault'] } } });
    expect(forVault.status).toMatchObject({ authenticated: true, audiences: ['vault'], user: { username: 'system:serviceaccount:default:robot' } });
    const forApi = await reviews.createTokenReview({ body: { spec: { token } } });
    expect(forApi.status?.authenticated).toBeFalsy();
    expect(forApi.status?.error).toContain('token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]');
  });

  it('stops accepting the tokens of a deleted account, even once an account of that name exists again', async () => {
    const token = await serviceAccountToken(server, 'default', 'short-lived');
    expect((await callAs(server, token, 'GET', '/version')).status).toBe(200);
    expect((await call(server, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/short-lived')).status).toBe(200);
    expect((await callAs(server, token, 'GET', '/version')).status).toBe(401);
    await call(server, 'POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'short-lived' } });
    expect((await callAs(server, token, 'GET', '/version')).status).toBe(401);
  });

  it('binds a token to a Secret it dies with', async () => {
    await call(server, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'binding' } });
    const token = await serviceAccountToken(server, 'default', 'robot', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'binding' } });
    expect(claimsOf(token)['kubernetes.io'].secret.name).toBe('binding');
    expect((await callAs(server, token, 'GET', '/version')).status).toBe(200);
    await call(server, 'DELETE', '/api/v1/namespaces/default/secrets/binding');
    expect((await callAs(server, token, 'GET', '/version')).status).toBe(401);
    const unknown = await call(server, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { spec: { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } } });
    expect(unknown.status).toBe(400);
  });

  it('fills legacy token Secrets, whose tokens last as long as the Secret and its account', async () => {
    await call(server, 'POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'legacy' } });
    const created = await call(server, 'POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 'legacy-token', annotations: { 'kubernetes.io/service-account.name': 'legacy' } },
      type: 'kubernetes.io/service-account-token',
    });
    expect(created.status).toBe(201);
    const filled = await eventually(async () => {
      const secret = (await call(server, 'GET', '/api/v1/namespaces/default/secrets/legacy-token')).body;
      expect(secret.data?.token).toBeDefined();
      return secret;
    });
    expect(Buffer.from(filled.data.namespace as string, 'base64').toString()).toBe('default');
    const uid = (await call(server, 'GET', '/api/v1/namespaces/default/serviceaccounts/legacy')).body.metadata.uid as string;
    expect(filled.metadata.annotations['kubernetes.io/service-account.uid']).toBe(uid);
    const token = Buffer.from(filled.data.token as string, 'base64').toString();
    expect(claimsOf(token).exp).toBeUndefined();
    expect((await whoami(server, token)).username).toBe('system:serviceaccount:default:legacy');
    // Deleting the account deletes its token Secrets; the token is refused at once.
    await call(server, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/legacy');
    expect((await callAs(server, token, 'GET', '/version')).status).toBe(401);
    await eventually(async () => expect((await call(server, 'GET', '/api/v1/namespaces/default/secrets/legacy-token')).status).toBe(404));
  });

  it('refuses requests whose Host is not this loopback server (DNS rebinding), naming what it accepts', async () => {
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `127.1.2.3:${server.port}`, `LOCALHOST:${server.port}`]) {
      expect((await call(server, 'GET', '/version', undefined, { Host: host })).status).toBe(200);
    }
    for (const host of [`attacker.example:${server.port}`, `localhost:${server.port + 1}`, 'localhost', `10.0.0.1:${server.port}`, `localhost.attacker.example:${server.port}`]) {
      const refused = await call(server, 'GET', '/version', undefined, { Host: host });
      expect({ host, status: refused.status }).toEqual({ host, status: 403 });
      expect(refused.body.message).toBe(
        `forbidden: the Host header ${JSON.stringify(host)} does not name this server, which listens on 127.0.0.1 port ${server.port} and serves requests addressed to ` +
          `localhost or a loopback address (127.0.0.1, [::1]) with port ${server.port} only (a defence against DNS rebinding); connect to the server by that address, or listen on 0.0.0.0 to accept any Host`,
      );
    }
  });
});

describe('ServiceAccount tokens across a restart, and expiry', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'olm-auth-restart-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the signing key and the admin token in the data directory, and refuses expired tokens', async () => {
    let server = await startTestServer({ dataDir });
    const adminToken = server.token;
    const token = await serviceAccountToken(server, 'default', 'robot');
    await server.stop();
    server = await startTestServer({ dataDir });
    try {
      expect(server.token).toBe(adminToken);
      expect((await whoami(server, token)).username).toBe('system:serviceaccount:default:robot');
      // The same claims with an expiry in the past, signed with the server's key: refused.
      const signer = JwtSigner.open(join(dataDir, 'auth', 'sa.key'));
      const claims = claimsOf(token);
      const expired = signer.sign({ ...claims, iat: claims.iat - 7200, nbf: claims.nbf - 7200, exp: Math.floor(Date.now() / 1000) - 1 });
      expect(signer.verify(expired)).toBeDefined();
      expect((await callAs(server, expired, 'GET', '/version')).status).toBe(401);
      // A token signed by another key is refused too.
      expect((await callAs(server, JwtSigner.open().sign(claims), 'GET', '/version')).status).toBe(401);
      expect(readFileSync(join(dataDir, 'auth', 'admin-token'), 'utf8').trim()).toBe(adminToken);
    } finally {
      await server.stop();
    }
  });
});

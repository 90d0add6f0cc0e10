import { execFileSync } from 'node:child_process';
import { randomUUID, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasErrorCode } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleImageErrorCodes, createOciRegistryClient, extractBundleFiles } from '../src/index.js';
import { dockerRegistryBinary, pushImage, startDockerRegistry, tarLayer, type DockerRegistry, type PushedImage } from './oci-images.js';

const binary = dockerRegistryBinary();
const openssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (binary && !openssl) console.warn('bearer-token registry test skipped: openssl not found (it makes the token signing certificate)');

const service = 'olm-test-registry';
const issuer = 'olm-test-token-issuer';

/**
 * The registry in token mode (distribution's `auth.token`): every request needs a JWT from a token
 * service, signed by a key whose certificate the registry trusts. The token service here is a real
 * one in a few lines: it hands out anonymous tokens for any repository except `acme/secret-bundle`.
 */
describe.skipIf(!binary || !openssl)('pulling from a registry that asks for a bearer token', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-registry-auth-'));
  const tokenRequests: Array<{ service: string | null; scope: string | null; method?: string; user?: string; refreshToken?: string }> = [];
  let tokenServer: Server;
  let registry: DockerRegistry;
  let pushed: PushedImage;
  let secret: PushedImage;
  let privateKey: string;
  let certificate: string;

  const token = (scope: string) => {
    const now = Math.floor(Date.now() / 1000);
    const access = scope
      .split(' ')
      .filter(Boolean)
      .map((entry) => {
        const [type, ...rest] = entry.split(':');
        const actions = rest.pop()!.split(',');
        return { type, name: rest.join(':'), actions };
      });
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${encode({ typ: 'JWT', alg: 'RS256', x5c: [certificate] })}.${encode({ iss: issuer, sub: '', aud: service, exp: now + 600, nbf: now - 60, iat: now, jti: randomUUID(), access })}`;
    return `${input}.${sign('RSA-SHA256', Buffer.from(input), privateKey).toString('base64url')}`;
  };

  beforeAll(async () => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'cert.pem'), '-subj', `/CN=${issuer}`, '-days', '1'], {
      stdio: 'ignore',
    });
    privateKey = readFileSync(join(directory, 'key.pem'), 'utf8');
    certificate = readFileSync(join(directory, 'cert.pem'), 'utf8').replace(/-----[A-Z ]+-----|\s/g, '');
    tokenServer = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        // GET ?service=&scope= with optional Basic credentials, or the OAuth2 POST with a refresh token
        const url = new URL(request.url ?? '/', 'http://token');
        const form = request.method === 'POST' ? new URLSearchParams(body) : url.searchParams;
        const scope = form.get('scope') ?? '';
        const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
        const login = basic ? Buffer.from(basic, 'base64').toString('utf8') : undefined;
        const refreshToken = form.get('refresh_token') ?? undefined;
        tokenRequests.push({ service: form.get('service'), scope, method: request.method, ...(login ? { user: login.split(':')[0] } : {}), ...(refreshToken ? { refreshToken } : {}) });
        const loggedIn = login === 'olm:s3cret' || (form.get('grant_type') === 'refresh_token' && refreshToken === 'refresh-me');
        if (scope.includes('acme/secret-bundle') && !loggedIn) {
          response.writeHead(401, { 'Content-Type': 'application/json' }).end('{"details":"login required"}');
          return;
        }
        const issued = token(scope);
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ token: issued, access_token: issued, expires_in: 600 }));
      });
    });
    await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
    const realm = `http://127.0.0.1:${(tokenServer.address() as { port: number }).port}/token`;
    registry = await startDockerRegistry(binary!, directory, { auth: { realm, service, issuer, rootCertBundle: join(directory, 'cert.pem') } });
    const layer = await tarLayer([
      { name: 'manifests/csv.yaml', content: 'apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: private.v1.0.0}\n' },
    ]);
    pushed = await pushImage(registry, 'acme/private-bundle', 'v1', [{ bytes: layer, gzipped: false }], {
      Authorization: `Bearer ${token('repository:acme/private-bundle:pull,push')}`,
    });
    secret = await pushImage(registry, 'acme/secret-bundle', 'v1', [{ bytes: layer, gzipped: false }], {
      Authorization: `Bearer ${token('repository:acme/secret-bundle:pull,push')}`,
    });
  });
  afterAll(async () => {
    await registry?.stop();
    await new Promise((resolve) => (tokenServer ? tokenServer.close(resolve) : resolve(undefined)));
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers the challenge with an anonymous token and pulls the image', async () => {
    // the registry really refuses requests without a token
    const anonymous = await fetch(`${registry.url}/v2/acme/private-bundle/manifests/v1`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="http:\/\/127\.0\.0\.1:\d+\/token",service="olm-test-registry",scope="repository:acme\/private-bundle:pull"/);

    const pulled = await createOciRegistryClient().pullImage(pushed.reference);
    expect(pulled.digest).toBe(pushed.manifestDigest);
    expect([...(await extractBundleFiles(pulled.layers, pushed.reference)).keys()]).toEqual(['manifests/csv.yaml']);
    expect(tokenRequests).toContainEqual({ service, scope: 'repository:acme/private-bundle:pull', method: 'GET' });
  });

  it('exchanges the Basic credentials of a pull secret for a token to pull a private image', async () => {
    const pulled = await createOciRegistryClient().pullImage(secret.reference, { credentials: [{ source: 'secret olm/regcred', username: 'olm', password: 's3cret' }] });
    expect(pulled.digest).toBe(secret.manifestDigest);
    expect(tokenRequests).toContainEqual({ service, scope: 'repository:acme/secret-bundle:pull', method: 'GET', user: 'olm' });
  });

  it('exchanges an identity token with the OAuth2 refresh-token grant, and sends a registry token as it is', async () => {
    const refreshed = await createOciRegistryClient().pullImage(secret.reference, { credentials: [{ source: 'secret olm/identity', identityToken: 'refresh-me' }] });
    expect(refreshed.digest).toBe(secret.manifestDigest);
    expect(tokenRequests).toContainEqual({ service, scope: 'repository:acme/secret-bundle:pull', method: 'POST', refreshToken: 'refresh-me' });

    const before = tokenRequests.length;
    const direct = await createOciRegistryClient().pullImage(secret.reference, {
      credentials: [{ source: 'secret olm/token', registryToken: token('repository:acme/secret-bundle:pull') }],
    });
    expect(direct.digest).toBe(secret.manifestDigest);
    expect(tokenRequests.length).toBe(before);
  });

  it('tries the next credential when the token service refuses one, and names every refusal', async () => {
    const wrong = { source: 'secret olm/wrong', username: 'olm', password: 'nope' };
    const pulled = await createOciRegistryClient().pullImage(secret.reference, { credentials: [wrong, { source: 'secret olm/right', username: 'olm', password: 's3cret' }] });
    expect(pulled.digest).toBe(secret.manifestDigest);

    const error = await createOciRegistryClient()
      .pullImage(secret.reference, { credentials: [wrong] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(hasErrorCode(error, BundleImageErrorCodes.unauthorized)).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^not allowed to pull ${secret.reference.replaceAll('.', '\\.')}: the token service http://127\\.0\\.0\\.1:\\d+/token refused the credentials of secret olm/wrong for repository:acme/secret-bundle:pull \\(HTTP 401\\); fix the credentials in that pull secret`,
      ),
    );
  });

  it('says so when the token service refuses an anonymous token', async () => {
    const image = `${registry.host}/acme/secret-bundle:v1`;
    const error = await createOciRegistryClient()
      .pullImage(image)
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(hasErrorCode(error, BundleImageErrorCodes.unauthorized)).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(`^pulling ${image.replaceAll('.', '\\.')}: the token service http://127\\.0\\.0\\.1:\\d+/token refused an anonymous token for repository:acme/secret-bundle:pull \\(HTTP 401\\); the image is private`),
    );
  });
});

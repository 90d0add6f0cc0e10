import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube-object.js';
import { JwtSigner } from './jwt-signer.js';
import { apiAudiences, issueBoundToken, issueLegacyToken, validateServiceAccountToken, type ObjectLookup } from './service-account-tokens.js';

const account: KubeObject = { metadata: { name: 'robot', namespace: 'team', uid: 'uid-1' } };

function lookup(objects: Record<string, KubeObject>): ObjectLookup {
  return { get: (resource, namespace, name) => objects[`${resource}/${namespace ?? ''}/${name}`] };
}

describe('ServiceAccount tokens', () => {
  const signer = JwtSigner.open();
  const now = 1_700_000_000;

  it('signs ES256 JWTs that only its key verifies, and rejects tampering', () => {
    const token = signer.sign({ sub: 'x' });
    expect(JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString())).toEqual({ alg: 'ES256', kid: signer.keyId });
    expect(signer.verify(token)).toEqual({ sub: 'x' });
    expect(JwtSigner.open().verify(token)).toBeUndefined();
    const [header, , signature] = token.split('.');
    expect(signer.verify(`${header}.${Buffer.from('{"sub":"admin"}').toString('base64url')}.${signature}`)).toBeUndefined();
    const payload = token.split('.')[1] ?? '';
    for (const garbage of ['', 'a.b', 'a.b.c', '...', `${header}.%%%.${signature}`, `${header}.${payload}.AAAA`, `${header}.${payload}.`, `${header}.${payload}.${signature}x`]) {
      expect(signer.verify(garbage)).toBeUndefined();
    }
  });

  it('validates bound tokens: times, audiences, the account uid and the bound object', () => {
    const objects = lookup({ '/serviceaccounts/team/robot': account, '/secrets/team/s': { metadata: { name: 's', uid: 'secret-1' } } });
    const { token, expiresAt } = issueBoundToken(signer, account, { audiences: apiAudiences, expirationSeconds: 600, nowSeconds: now });
    const claims = signer.verify(token) ?? {};
    expect(expiresAt).toBe(now + 600);
    expect(validateServiceAccountToken(token, claims, objects, apiAudiences, now + 599)).toMatchObject({ user: { username: 'system:serviceaccount:team:robot', uid: 'uid-1' } });
    expect(validateServiceAccountToken(token, claims, objects, apiAudiences, now + 600)).toEqual({ error: 'service account token has expired' });
    expect(validateServiceAccountToken(token, claims, objects, apiAudiences, now - 1)).toEqual({ error: 'service account token is not valid yet' });
    expect(validateServiceAccountToken(token, claims, objects, ['vault'], now)).toMatchObject({ error: expect.stringContaining('is invalid for the target audiences ["vault"]') });
    const recreated = lookup({ '/serviceaccounts/team/robot': { metadata: { ...account.metadata, uid: 'uid-2' } } });
    expect(validateServiceAccountToken(token, claims, recreated, apiAudiences, now)).toMatchObject({ error: expect.stringContaining('was deleted and made again') });
    expect(validateServiceAccountToken(token, claims, lookup({}), apiAudiences, now)).toEqual({ error: 'serviceaccounts "robot" not found' });
    const bound = issueBoundToken(signer, account, { audiences: apiAudiences, expirationSeconds: 600, nowSeconds: now, boundObject: { kind: 'Secret', name: 's', uid: 'secret-1' } });
    const boundClaims = signer.verify(bound.token) ?? {};
    expect(validateServiceAccountToken(bound.token, boundClaims, objects, apiAudiences, now)).toHaveProperty('user');
    expect(validateServiceAccountToken(bound.token, boundClaims, lookup({ '/serviceaccounts/team/robot': account }), apiAudiences, now)).toEqual({ error: 'secrets "s" not found' });
  });

  it('validates legacy tokens against their Secret', () => {
    const token = issueLegacyToken(signer, account, 'robot-token');
    const claims = signer.verify(token) ?? {};
    const secret = (value: string): KubeObject => ({ metadata: { name: 'robot-token' }, data: { token: Buffer.from(value).toString('base64') } });
    expect(validateServiceAccountToken(token, claims, lookup({ '/serviceaccounts/team/robot': account, '/secrets/team/robot-token': secret(token) }), apiAudiences)).toHaveProperty('user');
    expect(validateServiceAccountToken(token, claims, lookup({ '/serviceaccounts/team/robot': account, '/secrets/team/robot-token': secret('other') }), apiAudiences)).toEqual({ error: 'token has been invalidated' });
    expect(validateServiceAccountToken(token, claims, lookup({ '/serviceaccounts/team/robot': account }), apiAudiences)).toEqual({ error: 'secrets "robot-token" not found' });
  });
});

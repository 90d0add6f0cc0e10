import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { callAs, rbac } from './auth-clients.js';
import { call, startTestServer } from './helpers.js';

describe('impersonation', () => {
  let server: ApiServer;
  const bob = (method: string, path: string, headers: Record<string, string>, body?: unknown) => callAs(server, 'bob-token', method, path, body, headers);
  const whoamiAs = async (token: string, headers: Record<string, string>) => {
    const response = await callAs(server, token, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, headers);
    if (response.status !== 201) throw new Error(response.text);
    return response.body.status.userInfo as Record<string, unknown>;
  };

  beforeAll(async () => {
    server = await startTestServer({ users: [{ token: 'bob-token', name: 'bob' }] });
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('refuses every kind of impersonation without the impersonate verb, as kube-apiserver words it', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'Impersonate-User': 'alice' }, 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope'],
      [{ 'Impersonate-User': 'system:serviceaccount:team:robot' }, 'serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"'],
    ];
    for (const [headers, message] of cases) {
      const refused = await bob('GET', '/version', headers);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(message);
    }
  });

  it('acts as the impersonated user, who is authenticated, once allowed; and authorizes as that user', async () => {
    await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', rbac('ClusterRole', 'impersonate-alice', { rules: [{ apiGroups: [''], resources: ['users'], resourceNames: ['alice'], verbs: ['impersonate'] }] }));
    await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', rbac('ClusterRoleBinding', 'bob-impersonates-alice', {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-alice' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
    }));
    expect(await whoamiAs('bob-token', { 'Impersonate-User': 'alice' })).toEqual({ username: 'alice', groups: ['system:authenticated'] });
    expect((await bob('GET', '/version', { 'Impersonate-User': 'carol' })).status).toBe(403);
    const asAlice = await bob('GET', '/api/v1/namespaces/team/secrets', { 'Impersonate-User': 'alice' });
    expect(asAlice.body.message).toBe('secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team"');
    // Groups, uids and extra fields each need their own grant.
    const group = await bob('GET', '/version', { 'Impersonate-User': 'alice', 'Impersonate-Group': 'admins' });
    expect(group.body.message).toBe('groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope');
    const uid = await bob('GET', '/version', { 'Impersonate-User': 'alice', 'Impersonate-Uid': 'alice-1' });
    expect(uid.body.message).toBe('uids.authentication.k8s.io "alice-1" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');
    const extra = await bob('GET', '/version', { 'Impersonate-User': 'alice', 'Impersonate-Extra-Scopes': 'view' });
    expect(extra.body.message).toBe('userextras.authentication.k8s.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    const groupsOnly = await bob('GET', '/version', { 'Impersonate-Group': 'admins' });
    expect(groupsOnly.status).toBe(400);
    expect(groupsOnly.body.message).toContain('without a user');
  });

  it('gives an impersonated ServiceAccount its groups; the admin may impersonate anyone with anything', async () => {
    expect(await whoamiAs(server.token, { 'Impersonate-User': 'system:serviceaccount:team:robot' })).toEqual({
      username: 'system:serviceaccount:team:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
    });
    const headers = { 'Impersonate-User': 'dave', 'Impersonate-Uid': 'dave-1', 'Impersonate-Extra-Example.com%2Fscopes': 'read' };
    const review = await callAs(server, server.token, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {}, { ...headers });
    expect(review.body.status.userInfo).toEqual({ username: 'dave', uid: 'dave-1', groups: ['system:authenticated'], extra: { 'example.com/scopes': ['read'] } });
    // Repeated Impersonate-Group headers are each a group; explicit groups replace the defaults.
    const multi = (await call(server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {}, { 'Impersonate-User': 'erin', 'Impersonate-Group': ['a, b', 'c'] })).body;
    expect((multi['status'] as { userInfo: unknown }).userInfo).toEqual({ username: 'erin', groups: ['a, b', 'c', 'system:authenticated'] });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { callAs, rbac } from './auth-clients.js';
import { call, startTestServer } from './helpers.js';

const roles = '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles';
const roleBindings = '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings';
const clusterRoles = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const notHeld = 'user "ops" (groups=["operators" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:';

describe('RBAC escalation prevention', () => {
  let server: ApiServer;
  const ops = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => callAs(server, 'ops-token', method, path, body, headers);
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await call(server, method, path, body);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.text}`);
    return response;
  };
  const grant = async (name: string, rules: unknown[], scope: 'team' | 'cluster' = 'team') => {
    if (scope === 'team') {
      await admin('POST', roles, rbac('Role', name, { rules }));
      await admin('POST', roleBindings, rbac('RoleBinding', name, { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ kind: 'User', name: 'ops' }] }));
    } else {
      await admin('POST', clusterRoles, rbac('ClusterRole', name, { rules }));
      await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', rbac('ClusterRoleBinding', name, { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [{ kind: 'User', name: 'ops' }] }));
    }
    // Bindings are indexed from the store's events, delivered on a later turn.
    await new Promise((resolve) => setTimeout(resolve, 20));
  };

  beforeAll(async () => {
    server = await startTestServer({ users: [{ token: 'ops-token', name: 'ops', groups: ['operators'] }] });
    await admin('POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
    await grant('rbac-manager', [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
    ]);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('lets a user grant what it holds, and refuses more, listing what is missing', async () => {
    expect((await ops('POST', roles, rbac('Role', 'config-reader', { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }))).status).toBe(201);
    const refused = await ops('POST', roles, rbac('Role', 'secret-reader', {
      rules: [
        { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['delete', 'get'] },
      ],
    }));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ reason: 'Forbidden', details: { name: 'secret-reader', group: 'rbac.authorization.k8s.io', kind: 'roles' } });
    expect(refused.body.message).toBe(
      `roles.rbac.authorization.k8s.io "secret-reader" is forbidden: ${notHeld}\n` +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "get"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    );
    expect((await call(server, 'GET', `${roles}/secret-reader`)).status).toBe(404);
    // Widening an existing role is refused the same way, by update and by patch.
    const patch = await ops('PATCH', `${roles}/config-reader`, [{ op: 'add', path: '/rules/-', value: { apiGroups: [''], resources: ['secrets'], verbs: ['get'] } }], { 'Content-Type': 'application/json-patch+json' });
    expect(patch.status).toBe(403);
    expect(patch.body.message).toBe(`roles.rbac.authorization.k8s.io "config-reader" is forbidden: ${notHeld}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
    // Finalizers and ownerReferences alone are not a grant.
    expect((await ops('PATCH', `${roles}/config-reader`, { metadata: { finalizers: ['example.com/keep'] } }, { 'Content-Type': 'application/merge-patch+json' })).status).toBe(200);
  });

  it('lets a user with escalate on roles write any role', async () => {
    await grant('escalator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }]);
    expect((await ops('POST', roles, rbac('Role', 'secret-reader', { rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }] }))).status).toBe(201);
  });

  it('refuses binding a role with permissions the user lacks, unless it may bind that role', async () => {
    const binding = rbac('RoleBinding', 'ops-reads-secrets', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-reader' }, subjects: [{ kind: 'User', name: 'intern' }] });
    const refused = await ops('POST', roleBindings, binding);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(`rolebindings.rbac.authorization.k8s.io "ops-reads-secrets" is forbidden: ${notHeld}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`);
    // A role it holds every permission of may be bound without bind.
    expect((await ops('POST', roleBindings, rbac('RoleBinding', 'intern-reads-config', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'config-reader' }, subjects: [{ kind: 'User', name: 'intern' }] }))).status).toBe(201);
    const missing = await ops('POST', roleBindings, rbac('RoleBinding', 'ghostly', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ghost' }, subjects: [{ kind: 'User', name: 'intern' }] }));
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('roles.rbac.authorization.k8s.io "ghost" not found');
    await grant('binder', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], resourceNames: ['secret-reader'], verbs: ['bind'] }]);
    expect((await ops('POST', roleBindings, binding)).status).toBe(201);
  });

  it('requires cluster-admin rights to set an aggregationRule', async () => {
    await grant('clusterrole-writer', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create'] }], 'cluster');
    expect((await ops('POST', clusterRoles, rbac('ClusterRole', 'config-viewer', { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] }))).status).toBe(403);
    const aggregated = await ops('POST', clusterRoles, rbac('ClusterRole', 'everything', { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: 'ops' } }] } }));
    expect(aggregated.status).toBe(403);
    expect(aggregated.body.message).toBe('clusterroles.rbac.authorization.k8s.io "everything" is forbidden: must have cluster-admin privileges to use the aggregationRule');
  });

  it('exempts system:masters from the checks', async () => {
    expect((await call(server, 'POST', clusterRoles, rbac('ClusterRole', 'anything', { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: 'ops' } }] } }))).status).toBe(201);
  });
});

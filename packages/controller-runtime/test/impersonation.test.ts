import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiStatusCode, apiStatusMessage } from '../src/errors.js';
import { KubeClient } from '../src/kube-client.js';
import { configMap, configMapKind, createNamespace, startServer } from './helpers.js';

const rbac = 'rbac.authorization.k8s.io/v1';
let env: Awaited<ReturnType<typeof startServer>>;
let admin: KubeClient;

beforeAll(async () => {
  env = await startServer();
  admin = env.client();
  await createNamespace(admin, 'imp');
  await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: 'imp' } });
  // The account may read and create ConfigMaps in `imp`, nothing else.
  await admin.create({ apiVersion: rbac, kind: 'Role', metadata: { name: 'configmaps', namespace: 'imp' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create'] }] });
  await admin.create({
    apiVersion: rbac,
    kind: 'RoleBinding',
    metadata: { name: 'installer', namespace: 'imp' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmaps' },
    subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: 'imp' }],
  });
});
afterAll(async () => {
  admin?.close();
  await env?.stop();
});

describe('KubeClient.impersonate against the RBAC-enforcing local API server', () => {
  it('acts as the ServiceAccount: what its Role grants works, the rest is refused with the server\'s message naming it', async () => {
    const installer = admin.impersonate({ username: 'system:serviceaccount:imp:installer' });
    expect(installer.impersonatedUser).toEqual({ username: 'system:serviceaccount:imp:installer' });
    await installer.create(configMap('imp', 'made-by-installer', { a: '1' }));
    expect((await admin.get({ ...configMapKind, namespace: 'imp', name: 'made-by-installer' })).data).toEqual({ a: '1' });

    const refused = await installer.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'imp' } }).catch((error: unknown) => error);
    expect(apiStatusCode(refused)).toBe(403);
    expect(apiStatusMessage(refused)).toBe(
      'secrets is forbidden: User "system:serviceaccount:imp:installer" cannot create resource "secrets" in API group "" in the namespace "imp"',
    );
    // The admin itself may do it: the refusal is the account's, not the connection's.
    await admin.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'imp' } });
  });

  it('sends the groups it is given, one Impersonate-Group header each, and the server sees them', async () => {
    const someone = admin.impersonate({ username: 'jane', groups: ['team-a', 'team-b'] });
    const review = (await someone.request({ method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', body: {} })) as {
      status: { userInfo: { username: string; groups: string[] } };
    };
    expect(review.status.userInfo.username).toBe('jane');
    expect(review.status.userInfo.groups).toEqual(expect.arrayContaining(['team-a', 'team-b', 'system:authenticated']));
  });

  it('needs the impersonate right: a user without it is refused before anything is done', async () => {
    const secret = await admin.request({
      method: 'POST',
      path: '/api/v1/namespaces/imp/serviceaccounts/installer/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    });
    const token = (secret as { status: { token: string } }).status.token;
    const asInstaller = new KubeClient({ kubeconfig: env.kubeconfig.replace(env.server.token, token) });
    try {
      const refused = await asInstaller.impersonate({ username: 'system:serviceaccount:kube-system:default' }).get({ ...configMapKind, namespace: 'imp', name: 'made-by-installer' }).catch((error: unknown) => error);
      expect(apiStatusCode(refused)).toBe(403);
      expect(apiStatusMessage(refused)).toContain('cannot impersonate resource "serviceaccounts"');
    } finally {
      asInstaller.close();
    }
  });

  it('keeps the impersonation in a warning-handler view, and refuses to watch', async () => {
    const view = admin.impersonate({ username: 'system:serviceaccount:imp:installer' }).withWarningHandler(() => undefined);
    expect(view.impersonatedUser?.username).toBe('system:serviceaccount:imp:installer');
    const refused = await view.get({ apiVersion: 'v1', kind: 'Namespace', name: 'imp' }).catch((error: unknown) => error);
    expect(apiStatusCode(refused)).toBe(403);
    await expect(view.watch('/api/v1/namespaces/imp/configmaps', {}, () => undefined, () => undefined)).rejects.toThrow(/cannot watch/);
    expect(() => admin.impersonate({ username: '' })).toThrow(/username/);
  });
});

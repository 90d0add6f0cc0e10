import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthorizationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { callAs, kubeConfigFor, rbac, serviceAccountToken } from './auth-clients.js';
import { call, eventually, startTestServer } from './helpers.js';

const robot = 'system:serviceaccount:team:robot';

describe('RBAC authorization', () => {
  let server: ApiServer;
  let token: string;
  const as = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => callAs(server, token, method, path, body, headers);
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await call(server, method, path, body);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.text}`);
    return response;
  };

  beforeAll(async () => {
    server = await startTestServer({ users: [{ token: 'alice-token', name: 'alice', groups: ['developers'] }] });
    await admin('POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
    await admin('POST', '/api/v1/namespaces', { metadata: { name: 'other' } });
    token = await serviceAccountToken(server, 'team', 'robot');
  });
  afterAll(async () => {
    await server.stop();
  });

  it('forbids what no binding grants, in kube-apiserver words, to client-node too', async () => {
    const list = await as('GET', '/api/v1/namespaces/team/configmaps');
    expect(list.status).toBe(403);
    expect(list.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `configmaps is forbidden: User "${robot}" cannot list resource "configmaps" in API group "" in the namespace "team"`,
      reason: 'Forbidden',
      details: { kind: 'configmaps' },
      code: 403,
    });
    const named = await as('GET', '/apis/apps/v1/namespaces/team/deployments/web');
    expect(named.body.message).toBe(`deployments.apps "web" is forbidden: User "${robot}" cannot get resource "deployments" in API group "apps" in the namespace "team"`);
    expect(named.body.details).toEqual({ name: 'web', group: 'apps', kind: 'deployments' });
    const cluster = await as('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles');
    expect(cluster.body.message).toBe(`clusterroles.rbac.authorization.k8s.io is forbidden: User "${robot}" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`);
    const path = await as('GET', '/logs/kube-apiserver.log');
    expect(path.status).toBe(403);
    expect(path.body.message).toBe(`forbidden: User "${robot}" cannot get path "/logs/kube-apiserver.log"`);
    const viaClient = kubeConfigFor(server, token).makeApiClient(CoreV1Api);
    await expect(viaClient.listNamespacedSecret({ namespace: 'team' })).rejects.toMatchObject({ code: 403 });
  });

  it('lets every authenticated user discover the API and read public information', async () => {
    for (const path of ['/api', '/api/v1', '/apis', '/apis/apps/v1', '/version', '/healthz', '/openapi/v3']) expect({ path, status: (await as('GET', path)).status }).toEqual({ path, status: 200 });
  });

  it('grants a Role through a RoleBinding in its namespace only, as resources, subresources and names say', async () => {
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', rbac('Role', 'config-reader', {
      rules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['secrets'], resourceNames: ['shared'], verbs: ['get', 'watch'] },
        { apiGroups: ['apps'], resources: ['*/scale'], verbs: ['get'] },
      ],
    }));
    // A ServiceAccount subject without a namespace is the binding's namespace's.
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', rbac('RoleBinding', 'robot-reads', {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'config-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
    }));
    await eventually(async () => expect((await as('GET', '/api/v1/namespaces/team/configmaps')).status).toBe(200));
    await admin('POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'settings' } });
    const client = kubeConfigFor(server, token).makeApiClient(CoreV1Api);
    expect((await client.listNamespacedConfigMap({ namespace: 'team' })).items.map((item) => item.metadata?.name)).toEqual(['settings']);
    expect((await as('GET', '/api/v1/namespaces/other/configmaps')).status).toBe(403);
    expect((await as('POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'c' } })).status).toBe(403);
    // resourceNames: the named Secret only; a list (no name) is not covered, a one-name watch is.
    await admin('POST', '/api/v1/namespaces/team/secrets', { metadata: { name: 'shared' } });
    expect((await as('GET', '/api/v1/namespaces/team/secrets/shared')).status).toBe(200);
    expect((await as('GET', '/api/v1/namespaces/team/secrets/private')).status).toBe(403);
    expect((await as('GET', '/api/v1/namespaces/team/secrets')).status).toBe(403);
    const watch = await as('GET', '/api/v1/namespaces/team/secrets?watch=true&fieldSelector=metadata.name%3Dshared&timeoutSeconds=1');
    expect(watch.status).toBe(200);
    expect((await as('GET', '/api/v1/namespaces/team/secrets?watch=true&fieldSelector=metadata.name%3Dprivate&timeoutSeconds=1')).body.message).toBe(
      `secrets "private" is forbidden: User "${robot}" cannot watch resource "secrets" in API group "" in the namespace "team"`,
    );
    // `*/scale` allows the scale subresource of any resource of the group, not the resource itself.
    await admin('POST', '/apis/apps/v1/namespaces/team/deployments', {
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    });
    expect((await as('GET', '/apis/apps/v1/namespaces/team/deployments/web/scale')).status).toBe(200);
    expect((await as('GET', '/apis/apps/v1/namespaces/team/deployments/web')).status).toBe(403);
    expect((await as('PUT', '/apis/apps/v1/namespaces/team/deployments/web/scale', { spec: { replicas: 2 } })).body.message).toBe(
      `deployments.apps "web" is forbidden: User "${robot}" cannot update resource "deployments/scale" in API group "apps" in the namespace "team"`,
    );
  });

  it('grants ClusterRoles everywhere through ClusterRoleBindings, to users and groups', async () => {
    const alice = (method: string, path: string, body?: unknown) => callAs(server, 'alice-token', method, path, body);
    expect((await alice('GET', '/api/v1/namespaces')).status).toBe(403);
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', rbac('ClusterRole', 'namespace-reader', { rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }] }));
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', rbac('ClusterRoleBinding', 'developers-read-namespaces', {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'namespace-reader' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'developers' }],
    }));
    await eventually(async () => expect((await alice('GET', '/api/v1/namespaces')).status).toBe(200));
    expect((await alice('GET', '/api/v1/namespaces/other')).status).toBe(200);
    expect((await alice('DELETE', '/api/v1/namespaces/other')).body.message).toBe('namespaces "other" is forbidden: User "alice" cannot delete resource "namespaces" in API group "" in the namespace "other"');
  });

  it('names a binding\'s missing role in the refusal', async () => {
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/other/rolebindings', rbac('RoleBinding', 'dangling', {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'not-there' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'team' }],
    }));
    await eventually(async () =>
      expect((await as('GET', '/api/v1/namespaces/other/pods')).body.message).toBe(
        `pods is forbidden: User "${robot}" cannot list resource "pods" in API group "" in the namespace "other": RBAC: role.rbac.authorization.k8s.io "not-there" not found`,
      ),
    );
  });

  it('answers access reviews: self, for another subject, local, and the rules list', async () => {
    const authorization = kubeConfigFor(server, token).makeApiClient(AuthorizationV1Api);
    const can = async (verb: string, resource: string, namespace: string) =>
      (await authorization.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { verb, resource, namespace } } } })).status?.allowed;
    expect(await can('list', 'configmaps', 'team')).toBe(true);
    expect(await can('list', 'configmaps', 'other')).toBe(false);
    expect(await can('delete', 'configmaps', 'team')).toBe(false);
    // The robot may not review others; the admin may.
    await expect(authorization.createSubjectAccessReview({ body: { spec: { user: 'alice', resourceAttributes: { verb: 'list', resource: 'namespaces' } } } })).rejects.toMatchObject({ code: 403 });
    const adminReviews = kubeConfigFor(server, server.token).makeApiClient(AuthorizationV1Api);
    const review = await adminReviews.createSubjectAccessReview({ body: { spec: { user: 'alice', groups: ['developers'], resourceAttributes: { verb: 'list', resource: 'namespaces' } } } });
    expect(review.status).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "developers-read-namespaces" of ClusterRole "namespace-reader" to Group "developers"' });
    const withoutGroup = await adminReviews.createSubjectAccessReview({ body: { spec: { user: 'alice', resourceAttributes: { verb: 'list', resource: 'namespaces' } } } });
    expect(withoutGroup.status?.allowed).toBe(false);
    const local = await adminReviews.createNamespacedLocalSubjectAccessReview({
      namespace: 'team',
      body: { metadata: { namespace: 'team' }, spec: { user: robot, resourceAttributes: { verb: 'get', resource: 'configmaps' } } },
    });
    expect(local.status?.allowed).toBe(true);
    expect(local.spec.resourceAttributes?.namespace).toBe('team');
    const invalid = await call(server, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toBe('SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified');
    const rules = await authorization.createSelfSubjectRulesReview({ body: { spec: { namespace: 'team' } } });
    expect(rules.status?.incomplete).toBe(false);
    expect(rules.status?.resourceRules).toContainEqual({ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] });
    expect(rules.status?.resourceRules).toContainEqual({ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] });
    expect(rules.status?.nonResourceRules).toContainEqual({ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] });
    expect((await call(server, 'GET', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).status).toBe(405);
  });

  it('lists the review kinds as create-only in discovery, and the token subresource', async () => {
    const authorization = (await call(server, 'GET', '/apis/authorization.k8s.io/v1')).body.resources as Array<{ name: string; namespaced: boolean; verbs: string[] }>;
    expect(authorization.map((resource) => [resource.name, resource.namespaced, resource.verbs])).toEqual([
      ['localsubjectaccessreviews', true, ['create']],
      ['selfsubjectaccessreviews', false, ['create']],
      ['selfsubjectrulesreviews', false, ['create']],
      ['subjectaccessreviews', false, ['create']],
    ]);
    const authentication = (await call(server, 'GET', '/apis/authentication.k8s.io/v1')).body.resources as Array<{ name: string }>;
    expect(authentication.map((resource) => resource.name)).toEqual(['selfsubjectreviews', 'tokenreviews']);
    const core = (await call(server, 'GET', '/api/v1')).body.resources as Array<Record<string, unknown>>;
    expect(core.find((resource) => resource['name'] === 'serviceaccounts/token')).toEqual({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  });

  it('creates the bootstrap policy', async () => {
    const roles = (await call(server, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles?labelSelector=kubernetes.io/bootstrapping%3Drbac-defaults')).body.items as Array<{ metadata: any; rules: any[]; aggregationRule?: any }>;
    expect(roles.map((role) => role.metadata.name).sort()).toEqual([
      'admin',
      'cluster-admin',
      'edit',
      'system:aggregate-to-admin',
      'system:aggregate-to-edit',
      'system:aggregate-to-view',
      'system:auth-delegator',
      'system:basic-user',
      'system:discovery',
      'system:public-info-viewer',
      'view',
    ]);
    for (const role of roles) expect(role.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate']).toBe('true');
    const byName = new Map(roles.map((role) => [role.metadata.name as string, role]));
    expect(byName.get('view')?.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
    expect(byName.get('view')?.metadata.labels['rbac.authorization.k8s.io/aggregate-to-edit']).toBe('true');
    // Kept to the kinds this server serves.
    const viewResources = (byName.get('system:aggregate-to-view')?.rules ?? []).flatMap((rule: { resources: string[] }) => rule.resources);
    expect(viewResources).toContain('deployments/scale');
    expect(viewResources).not.toContain('statefulsets');
    expect(viewResources).not.toContain('pods/log');
    const bindings = (await call(server, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings?labelSelector=kubernetes.io/bootstrapping%3Drbac-defaults')).body.items as Array<{ metadata: any; subjects: any[] }>;
    expect(Object.fromEntries(bindings.map((binding) => [binding.metadata.name, binding.subjects.map((subject: { name: string }) => subject.name)]))).toEqual({
      'cluster-admin': ['system:masters'],
      'system:basic-user': ['system:authenticated'],
      'system:discovery': ['system:authenticated'],
      'system:public-info-viewer': ['system:authenticated', 'system:unauthenticated'],
    });
  });
});

describe('authorization of aggregated APIs', () => {
  let server: ApiServer;
  let backend: Server;
  let seen: Array<{ url: string; headers: Record<string, string | string[] | undefined> }>;

  beforeAll(async () => {
    seen = [];
    backend = createServer((request, response) => {
      seen.push({ url: request.url ?? '', headers: request.headers });
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'gadgets.example.com/v1', resources: [] }));
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const port = (backend.address() as AddressInfo).port;
    server = await startTestServer();
    await call(server, 'POST', '/api/v1/namespaces/default/services', { metadata: { name: 'gadgets' }, spec: { type: 'ExternalName', externalName: '127.0.0.1', ports: [{ port, appProtocol: 'http' }] } });
    await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      metadata: { name: 'v1.gadgets.example.com' },
      spec: { group: 'gadgets.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'default', name: 'gadgets', port } },
    });
  });
  afterAll(async () => {
    await server.stop();
    await new Promise((resolve) => backend.close(resolve));
  });

  it('authorizes requests before proxying them, and forwards no impersonation headers', async () => {
    const token = await serviceAccountToken(server, 'default', 'caller');
    const refused = await callAs(server, token, 'GET', '/apis/gadgets.example.com/v1/namespaces/default/gadgets');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('gadgets.gadgets.example.com is forbidden: User "system:serviceaccount:default:caller" cannot list resource "gadgets" in API group "gadgets.example.com" in the namespace "default"');
    expect(seen.filter((request) => request.url.includes('/namespaces/'))).toEqual([]);
    const proxied = await call(server, 'GET', '/apis/gadgets.example.com/v1?from=test', undefined, { 'Impersonate-User': 'alice' });
    expect(proxied.status).toBe(200);
    const forwarded = seen.find((request) => request.url.endsWith('from=test'));
    expect(forwarded?.headers['impersonate-user']).toBeUndefined();
    expect(forwarded?.headers['authorization']).toBeUndefined();
  });
});

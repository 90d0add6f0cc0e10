import { request as httpRequest } from 'node:http';
import { Kinds } from '@olm/api';
import { KubeClient } from '@olm/controller-runtime';
import { eventually, kubeconfigFor, startTestCluster, subscription, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatExplanation, explainSubscription, startConsoleServer, type ConsoleServer, type Json } from '../src/index.js';
import { consoleRequest, signedIn } from './console-http.js';

const namespace = 'operators';

/** A plan waiting for Manual approval, as the catalog operator leaves it. */
async function waitingPlan(client: KubeClient, name: string): Promise<void> {
  const plan = await client.create<Json>({
    ...Kinds.installPlan,
    metadata: { name, namespace },
    spec: { approval: 'Manual', approved: false, clusterServiceVersionNames: ['acme-backup.v0.1.0', 'acme-database.v1.0.0'] },
  } as Json);
  await client.replaceStatus({
    ...plan,
    status: {
      phase: 'RequiresApproval',
      catalogSources: [],
      plan: [
        { resolving: 'acme-backup.v0.1.0', status: 'Unknown', resource: { kind: 'ClusterServiceVersion', name: 'acme-backup.v0.1.0', group: 'operators.coreos.com', version: 'v1alpha1', sourceName: 'c', sourceNamespace: 'olm' } },
        { resolving: 'acme-database.v1.0.0', status: 'Unknown', resource: { kind: 'ClusterServiceVersion', name: 'acme-database.v1.0.0', group: 'operators.coreos.com', version: 'v1alpha1', sourceName: 'c', sourceNamespace: 'olm' } },
      ],
    },
  } as Json);
}

describe('olm console server: the user\'s identity, and only the console\'s own pages', () => {
  let cluster: TestCluster;
  let viewerClient: KubeClient;
  let admin: ConsoleServer;
  let viewer: ConsoleServer;

  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: [namespace, 'olm'], users: [{ name: 'viewer', token: 'viewer-token' }] });
    const { client } = cluster;
    await client.create({
      ...Kinds.clusterRole,
      metadata: { name: 'olm-viewer' },
      rules: [{ apiGroups: ['operators.coreos.com', 'packages.operators.coreos.com'], resources: ['*'], verbs: ['get', 'list', 'watch'] }],
    } as Json);
    await client.create({
      ...Kinds.roleBinding,
      metadata: { name: 'viewer', namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'olm-viewer' },
      subjects: [{ kind: 'User', name: 'viewer', apiGroup: 'rbac.authorization.k8s.io' }],
    } as Json);
    await waitingPlan(client, 'install-abcde');
    viewerClient = new KubeClient({ kubeconfig: kubeconfigFor(cluster.server, 'viewer-token'), requestTimeoutMs: 5_000 });
    admin = await startConsoleServer({ client, defaultNamespace: namespace, limits: { maxEventStreams: 1, maxBodyBytes: 1024 } });
    viewer = await startConsoleServer({ client: viewerClient, defaultNamespace: namespace });
  });
  afterAll(async () => {
    await admin?.close();
    await viewer?.close();
    viewerClient?.close();
    await cluster?.stop();
  });

  it('listens on 127.0.0.1 and prints a URL that carries a long random token, different per run', () => {
    expect(admin.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    expect(admin.token).not.toBe(viewer.token);
  });

  it('refuses a Host that is not its own (DNS rebinding), for the page and the API alike', async () => {
    for (const path of ['/', `/?token=${admin.token}`, '/api/catalogs', '/app.js']) {
      const reply = await consoleRequest(admin.port, path, { headers: { Host: `rebind.attacker.example:${admin.port}`, ...signedIn(admin.port, admin.token) } });
      expect(reply.status, path).toBe(403);
      expect(reply.text).toContain('is not this console');
    }
    const localhost = await consoleRequest(admin.port, '/api/session', { headers: { Host: `localhost:${admin.port}`, ...signedIn(admin.port, admin.token) } });
    expect(localhost.status).toBe(200);
  });

  it('hands the token over once as an HttpOnly SameSite=Strict cookie, and every API call needs it', async () => {
    const opened = await consoleRequest(admin.port, `/?token=${admin.token}`);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/');
    expect(String(opened.headers['set-cookie'])).toBe(`olm_console_token=${admin.token}; HttpOnly; SameSite=Strict; Path=/`);

    expect((await consoleRequest(admin.port, `/?token=${'x'.repeat(43)}`)).status).toBe(401);
    expect((await consoleRequest(admin.port, '/')).status).toBe(401);
    const anonymous = await consoleRequest(admin.port, '/api/plans?namespace=operators');
    expect(anonymous.status).toBe(401);
    expect(anonymous.json().message).toContain('open the URL that `olm console` printed');
    // Another run's token is not this one's.
    expect((await consoleRequest(admin.port, '/api/plans?namespace=operators', { headers: signedIn(admin.port, viewer.token) })).status).toBe(401);
    expect((await consoleRequest(admin.port, '/api/plans?namespace=operators', { headers: { Authorization: `Bearer ${admin.token}` } })).status).toBe(200);
    expect((await consoleRequest(admin.port, '/', { headers: signedIn(admin.port, admin.token) })).status).toBe(200);
  });

  it('refuses a write sent from another origin even with the cookie (another local server is the same site)', async () => {
    const reply = await consoleRequest(admin.port, '/api/plans/approve', {
      method: 'POST',
      headers: { ...signedIn(admin.port, admin.token), Origin: 'http://127.0.0.1:9', 'Content-Type': 'application/json' },
      body: JSON.stringify({ namespace, name: 'install-abcde' }),
    });
    expect(reply.status).toBe(403);
    expect(reply.json().message).toContain('requests from http://127.0.0.1:9 are refused');
    const plan = await cluster.client.get<Json>({ ...Kinds.installPlan, namespace, name: 'install-abcde' });
    expect(plan.spec.approved).toBe(false);
  });

  it('offers Approve only to a user whom a SelfSubjectAccessReview allows, and relays the cluster\'s 403 to one who tries anyway', async () => {
    const asViewer = (await consoleRequest(viewer.port, '/api/plans?namespace=operators', { headers: signedIn(viewer.port, viewer.token) })).json();
    const asAdmin = (await consoleRequest(admin.port, '/api/plans?namespace=operators', { headers: signedIn(admin.port, admin.token) })).json();
    expect(asViewer.plans.map((plan: Json) => [plan.name, plan.waiting, plan.canApprove])).toEqual([['install-abcde', true, false]]);
    expect(asAdmin.plans.map((plan: Json) => [plan.name, plan.waiting, plan.canApprove])).toEqual([['install-abcde', true, true]]);
    expect(asAdmin.plans[0].operators.map((group: Json) => group.operator)).toEqual(['acme-backup.v0.1.0', 'acme-database.v1.0.0']);

    const refused = await consoleRequest(viewer.port, '/api/plans/approve', { method: 'POST', headers: signedIn(viewer.port, viewer.token, true), body: JSON.stringify({ namespace, name: 'install-abcde' }) });
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ status: 403, reason: 'Forbidden' });
    expect(refused.json().message).toMatch(/^installplans.operators.coreos.com "install-abcde" is forbidden: User "viewer" cannot patch resource "installplans"/);

    const approved = await consoleRequest(admin.port, '/api/plans/approve', { method: 'POST', headers: signedIn(admin.port, admin.token, true), body: JSON.stringify({ namespace, name: 'install-abcde' }) });
    expect(approved.status).toBe(200);
    expect((await cluster.client.get<Json>({ ...Kinds.installPlan, namespace, name: 'install-abcde' })).spec.approved).toBe(true);
  });

  it('relays what the cluster refuses to a view-only user as its 403 (catalogs across namespaces)', async () => {
    const reply = await consoleRequest(viewer.port, '/api/catalogs', { headers: signedIn(viewer.port, viewer.token) });
    expect(reply.status).toBe(403);
    expect(reply.json().message).toContain('User "viewer" cannot list resource "catalogsources"');
  });

  it('shows the same explanation of a Subscription as olm explain', async () => {
    const created = await cluster.client.create<Json>(subscription(namespace, 'acme-broken', { name: 'acme-broken', source: 'nowhere', sourceNamespace: 'olm', channel: 'stable' }) as Json);
    await cluster.client.replaceStatus({
      ...created,
      status: { lastUpdated: new Date().toISOString(), conditions: [{ type: 'ResolutionFailed', status: 'True', reason: 'ConstraintsNotSatisfiable', message: 'no operators found from catalog nowhere in namespace olm referenced by subscription acme-broken. Fix: create the catalog' }] },
    } as Json);
    const reply = await consoleRequest(admin.port, '/api/explain?namespace=operators&subscription=acme-broken', { headers: signedIn(admin.port, admin.token) });
    expect(reply.status).toBe(200);
    const expected = formatExplanation(await explainSubscription(cluster.client, await cluster.client.get<Json>({ ...Kinds.subscription, namespace, name: 'acme-broken' })));
    expect(reply.json().text).toBe(expected);
    expect(reply.json().text).toContain('resolution fails (ConstraintsNotSatisfiable): no operators found from catalog nowhere');
    const missing = await consoleRequest(admin.port, '/api/explain?namespace=operators&subscription=nothing-here', { headers: signedIn(admin.port, admin.token) });
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ reason: 'NotFound', message: 'subscriptions.operators.coreos.com "nothing-here" not found' });
  });

  it('refuses bad input with what and which limit: a body over maxBodyBytes, a namespace that is no name', async () => {
    const large = await consoleRequest(admin.port, '/api/plans/approve', { method: 'POST', headers: signedIn(admin.port, admin.token, true), body: JSON.stringify({ namespace, name: 'x'.repeat(2000) }) });
    expect(large.status).toBe(413);
    expect(large.json().message).toContain("larger than 1024 bytes (the console's maxBodyBytes)");
    const badNamespace = await consoleRequest(admin.port, '/api/plans?namespace=..%2Fetc', { headers: signedIn(admin.port, admin.token) });
    expect(badNamespace.status).toBe(400);
    expect(badNamespace.json().message).toContain('is not a namespace name');
  });

  it('relays the cluster\'s watches as Server-Sent Events, at most maxEventStreams at once', async () => {
    const events: string[] = [];
    const stream = httpRequest({ host: '127.0.0.1', port: admin.port, path: `/api/events?namespace=${namespace}`, headers: { Host: `127.0.0.1:${admin.port}`, ...signedIn(admin.port, admin.token) } });
    const opened = new Promise<void>((resolve) =>
      stream.on('response', (response) => {
        expect(response.headers['content-type']).toContain('text/event-stream');
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => events.push(chunk));
        resolve();
      }),
    );
    stream.end();
    await opened;
    try {
      const second = await consoleRequest(admin.port, `/api/events?namespace=${namespace}`, { headers: signedIn(admin.port, admin.token) });
      expect(second.status).toBe(429);
      expect(second.json().message).toContain('--max-event-streams 1');
      await cluster.client.create(subscription(namespace, 'acme-live', { name: 'acme-live', source: 'c', sourceNamespace: 'olm' }) as Json);
      await eventually(async () => (events.join('').includes('"name":"acme-live"') ? true : undefined), { message: 'a change event for acme-live' });
      expect(events.join('')).toMatch(/event: change\ndata: \{"kind":"Subscription","type":"(ADDED|MODIFIED)","namespace":"operators","name":"acme-live"\}/);
    } finally {
      stream.destroy();
    }
    await eventually(async () => ((await consoleRequest(admin.port, `/api/session`, { headers: signedIn(admin.port, admin.token) })).status === 200 ? true : undefined), { message: 'console answers' });
  });
});

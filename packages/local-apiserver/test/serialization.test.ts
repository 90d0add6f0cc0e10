import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, installWidgetCrd, send, startTestServer } from './helpers.js';

/** Keys of the object at `path` in a JSON text, in the order the text has them. */
function keysAt(text: string, ...path: (string | number)[]): string[] {
  let node: any = JSON.parse(text);
  for (const step of path) node = node[step];
  return Object.keys(node);
}

/** The first `count` lines of a watch, as raw text. */
async function rawWatchLines(server: ApiServer, path: string, count: number, trigger: () => Promise<unknown>): Promise<string[]> {
  const controller = new AbortController();
  const response = await send(server, 'GET', path, {}, undefined, controller.signal);
  await trigger();
  let buffer = '';
  response.setEncoding('utf8');
  for await (const chunk of response) {
    buffer += chunk as string;
    if (buffer.split('\n').length > count) break;
  }
  controller.abort();
  return buffer.split('\n').slice(0, count);
}

describe('responses are serialized as kube-apiserver writes them', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer();
    await installWidgetCrd(server);
  });

  afterAll(async () => {
    await server.stop();
  });

  it('writes a ClusterRole in Go struct order, with its labels sorted', async () => {
    const created = await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { labels: { zeta: 'z', alpha: 'a', 'rbac.example.com/aggregate': 'true' }, name: 'ordered-reader' },
      rules: [{ resources: ['configmaps'], apiGroups: [''], verbs: ['get', 'list'] }],
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
    });
    expect(created.status).toBe(201);
    const got = await call(server, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/ordered-reader');
    for (const text of [created.text, got.text]) {
      expect(text.startsWith('{"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"ordered-reader","uid":"')).toBe(true);
      expect(text).toContain('"labels":{"alpha":"a","rbac.example.com/aggregate":"true","zeta":"z"}');
      expect(text).toContain('"rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["configmaps"]}]}\n');
      expect(keysAt(text)).toEqual(['kind', 'apiVersion', 'metadata', 'rules']);
      expect(keysAt(text, 'metadata')).toEqual(['name', 'uid', 'resourceVersion', 'creationTimestamp', 'labels', 'managedFields']);
    }
    // A ClusterRole without rules has `rules: null`: the Go field has no omitempty.
    const empty = await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'aggregated' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { b: '2', a: '1' } }] } });
    expect(empty.text).toContain('"rules":null,"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"1","b":"2"}}]}}');
  });

  it('writes ConfigMap data with sorted keys and escapes HTML characters as Go does', async () => {
    const created = await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { data: { 'z.txt': '1', 'a.txt': '<b>&</b>', 'm.txt': '3' }, metadata: { name: 'sorted' } });
    expect(created.status).toBe(201);
    const got = await call(server, 'GET', '/api/v1/namespaces/default/configmaps/sorted');
    expect(keysAt(got.text)).toEqual(['kind', 'apiVersion', 'metadata', 'data']);
    expect(got.text).toContain('"data":{"a.txt":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e","m.txt":"3","z.txt":"1"}');
    expect(got.body.data['a.txt']).toBe('<b>&</b>');
  });

  it('writes a Deployment spec, pod template and containers in Go struct order, with Go value structs', async () => {
    const created = await call(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      spec: {
        template: {
          spec: { containers: [{ ports: [{ containerPort: 8080 }], image: 'example.com/web:1.0', name: 'web' }], serviceAccountName: 'web' },
          metadata: { labels: { app: 'web' } },
        },
        selector: { matchLabels: { app: 'web' } },
        replicas: 2,
        paused: false,
      },
      metadata: { name: 'web' },
    });
    expect(created.status).toBe(201);
    const { text } = await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/web');
    expect(keysAt(text)).toEqual(['kind', 'apiVersion', 'metadata', 'spec', 'status']);
    // `paused: false` is a zero Go bool with omitempty: dropped.
    expect(keysAt(text, 'spec')).toEqual(['replicas', 'selector', 'template', 'strategy', 'revisionHistoryLimit', 'progressDeadlineSeconds']);
    expect(keysAt(text, 'spec', 'template')).toEqual(['metadata', 'spec']);
    // A pod template's ObjectMeta is a Go value: its zero creationTimestamp is written as null.
    expect(text).toContain('"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"example.com/web:1.0","ports":[{"containerPort":8080,"protocol":"TCP"}],"resources":{},');
    expect(keysAt(text, 'spec', 'template', 'spec')).toEqual([
      'containers',
      'restartPolicy',
      'terminationGracePeriodSeconds',
      'dnsPolicy',
      'serviceAccountName',
      'serviceAccount',
      'securityContext',
      'schedulerName',
    ]);
    expect(keysAt(text, 'spec', 'template', 'spec', 'containers', 0)).toEqual(['name', 'image', 'ports', 'resources', 'terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy']);
  });

  it('writes custom resources and their lists with keys sorted at every level', async () => {
    const created = await call(server, 'POST', '/apis/example.com/v1/namespaces/default/widgets', {
      spec: { size: 3, parts: [{ name: 'b', count: 1 }] },
      metadata: { name: 'sorted', labels: { z: '1', a: '2' } },
      kind: 'Widget',
      apiVersion: 'example.com/v1',
    });
    expect(created.status).toBe(201);
    const got = await call(server, 'GET', '/apis/example.com/v1/namespaces/default/widgets/sorted');
    expect(keysAt(got.text)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(keysAt(got.text, 'metadata')).toEqual(['creationTimestamp', 'generation', 'labels', 'managedFields', 'name', 'namespace', 'resourceVersion', 'uid']);
    expect(got.text).toContain('"spec":{"color":"blue","parts":[{"count":1,"name":"b"}],"size":3}');
    const list = await call(server, 'GET', '/apis/example.com/v1/namespaces/default/widgets');
    expect(keysAt(list.text)).toEqual(['apiVersion', 'items', 'kind', 'metadata']);
    await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'second' } });
    const builtinList = await call(server, 'GET', '/api/v1/namespaces/default/configmaps?limit=1');
    expect(keysAt(builtinList.text)).toEqual(['kind', 'apiVersion', 'metadata', 'items']);
    expect(keysAt(builtinList.text, 'metadata')).toEqual(['resourceVersion', 'continue', 'remainingItemCount']);
  });

  it('sends the same bytes in watch events as in GET', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const [line] = await rawWatchLines(server, `${path}?watch=true&fieldSelector=metadata.name%3Dwatched&resourceVersion=${server.revision()}`, 1, () =>
      call(server, 'POST', path, { metadata: { name: 'watched', annotations: { b: '2', a: '1' } }, data: { y: '2', x: '1' } }),
    );
    const got = await call(server, 'GET', `${path}/watched`);
    expect(line).toBe(`{"type":"ADDED","object":${got.text.trimEnd()}}`);
  });

  it('sends bookmarks as kube does: an empty object of the kind, Go value structs included', async () => {
    const pods = await call(server, 'GET', `/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${server.revision()}`);
    const revision = server.revision();
    expect(pods.text).toBe(`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"${revision}","creationTimestamp":null},"spec":{"containers":null},"status":{}}}\n`);
    const widgets = await call(server, 'GET', `/apis/example.com/v1/widgets?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${server.revision()}`);
    expect(widgets.text).toBe(`{"type":"BOOKMARK","object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"resourceVersion":"${server.revision()}"}}}\n`);
  });

  it('writes Status errors in Go struct order', async () => {
    const missing = await call(server, 'GET', '/api/v1/namespaces/default/configmaps/absent');
    expect(missing.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"absent\\" not found","reason":"NotFound","details":{"name":"absent","kind":"configmaps"},"code":404}\n',
    );
  });
});

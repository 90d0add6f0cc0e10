import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { encodeRecordLine } from '../src/log-record-format.js';
import { call, eventually, installWidgetCrd, openWatch, startTestServer } from './helpers.js';

const cms = '/api/v1/namespaces/default/configmaps';

describe('durable storage with dataDir', () => {
  const directories: string[] = [];
  const servers: ApiServer[] = [];

  const start = async (dataDir: string, watchWindow?: number) => {
    const server = await startTestServer({ dataDir, ...(watchWindow !== undefined ? { watchWindow } : {}) });
    servers.push(server);
    return server;
  };

  const temporary = () => {
    const directory = mkdtempSync(join(tmpdir(), 'olm-apiserver-data-'));
    directories.push(directory);
    return directory;
  };

  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('keeps every acknowledged object across a restart and never moves resourceVersions backwards', async () => {
    const dataDir = temporary();
    const first = await start(dataDir);
    await installWidgetCrd(first);
    const acknowledged = await Promise.all(Array.from({ length: 30 }, (_, index) => call(first, 'POST', cms, { metadata: { name: `keep-${index}` }, data: { index: String(index) } })));
    expect(acknowledged.every((response) => response.status === 201)).toBe(true);
    await call(first, 'POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'kept' }, spec: { size: 5 } });
    await call(first, 'DELETE', `${cms}/keep-0`);
    const revisionBefore = first.revision();
    const kubeconfigPath = first.kubeconfigPath;
    await first.stop();
    expect(kubeconfigPath).toBe(join(dataDir, 'kubeconfig'));

    const second = await start(dataDir);
    expect(second.revision()).toBeGreaterThanOrEqual(revisionBefore);
    const list = await call(second, 'GET', cms);
    const names = list.body.items.map((item: any) => item.metadata.name);
    expect(names.filter((name: string) => name.startsWith('keep-'))).toHaveLength(29);
    expect(names).not.toContain('keep-0');
    for (const response of acknowledged.slice(1)) {
      const stored = list.body.items.find((item: any) => item.metadata.name === response.body.metadata.name);
      expect(stored.metadata.resourceVersion).toBe(response.body.metadata.resourceVersion);
      expect(stored.metadata.uid).toBe(response.body.metadata.uid);
    }
    // The CRD is served again at once and its objects are back.
    const widget = await call(second, 'GET', '/apis/example.com/v1/namespaces/default/widgets/kept');
    expect(widget.body.spec).toEqual({ size: 5, color: 'blue' });
    const next = await call(second, 'POST', cms, { metadata: { name: 'after-restart' } });
    expect(Number(next.body.metadata.resourceVersion)).toBeGreaterThan(revisionBefore);
  });

  it('has every acknowledged write on disk at once: a copy taken while serving (as a crash leaves it) restarts complete', async () => {
    const dataDir = temporary();
    const first = await start(dataDir);
    const from = first.revision();
    const created = await Promise.all(Array.from({ length: 40 }, (_, index) => call(first, 'POST', cms, { metadata: { name: `crash-${index}` }, data: { v: '0' } })));
    const deleted = await call(first, 'DELETE', `${cms}/crash-39`);
    const updated = await Promise.all(created.slice(0, 10).map((response) => call(first, 'PUT', `${cms}/${response.body.metadata.name}`, { ...response.body, data: { v: '1' } })));
    expect([...created, ...updated, deleted].every((response) => response.status < 300)).toBe(true);
    // No stop(), no flush: copy the log exactly as it is the moment the last write was acknowledged.
    const copy = temporary();
    copyFileSync(join(dataDir, 'store.jsonl'), join(copy, 'store.jsonl'));

    const restarted = await start(copy);
    const stored = new Map<string, any>((await call(restarted, 'GET', cms)).body.items.map((item: any) => [item.metadata.name, item]));
    const latest = [...updated, ...created.slice(10, 39)];
    for (const response of latest) {
      expect(stored.get(response.body.metadata.name)?.metadata).toMatchObject({ uid: response.body.metadata.uid, resourceVersion: response.body.metadata.resourceVersion });
    }
    expect(stored.has('crash-39')).toBe(false);
    expect(restarted.revision()).toBeGreaterThanOrEqual(Math.max(...latest.map((response) => Number(response.body.metadata.resourceVersion))));
    // The watch history came along too: every acknowledged event replays in order.
    const watch = openWatch(restarted, `${cms}?watch=true&resourceVersion=${from}`);
    const events = await watch.waitFor(51);
    watch.stop();
    const inRevisionOrder = (responses: typeof created) => [...responses].sort((left, right) => Number(left.body.metadata.resourceVersion) - Number(right.body.metadata.resourceVersion));
    expect(events.slice(0, 51).map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual([
      ...inRevisionOrder(created).map((response) => `ADDED ${response.body.metadata.name}`),
      'DELETED crash-39',
      ...inRevisionOrder(updated).map((response) => `MODIFIED ${response.body.metadata.name}`),
    ]);
  });

  it('resumes watches after a restart from a stored resourceVersion, or answers 410 when it was compacted', async () => {
    const dataDir = temporary();
    const first = await start(dataDir, 20);
    const from = first.revision();
    await call(first, 'POST', cms, { metadata: { name: 'w-a' } });
    await call(first, 'POST', cms, { metadata: { name: 'w-b' } });
    await first.stop();

    const second = await start(dataDir, 20);
    const watch = openWatch(second, `${cms}?watch=true&resourceVersion=${from}`);
    await call(second, 'POST', cms, { metadata: { name: 'w-c' } });
    const events = await watch.waitFor(3);
    watch.stop();
    expect(events.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual(['ADDED w-a', 'ADDED w-b', 'ADDED w-c']);

    for (let index = 0; index < 30; index++) await call(second, 'POST', cms, { metadata: { generateName: 'fill-' } });
    await second.stop();
    const third = await start(dataDir, 20);
    const expired = openWatch(third, `${cms}?watch=true&resourceVersion=${from}`);
    await expired.done;
    expect(expired.events[0]).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
  });

  it('lets an informer restarted after the server comes back converge', async () => {
    const dataDir = temporary();
    const first = await start(dataDir);
    const port = first.port;
    const config = new KubeConfig();
    config.loadFromString(first.kubeconfig);
    const core = config.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1ConfigMap>(config, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
    const errors: unknown[] = [];
    informer.on('error', (error) => errors.push(error));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'before-restart' } } });
    await eventually(() => expect(informer.list().map((item) => item.metadata?.name)).toEqual(['before-restart']));
    await first.stop();
    await eventually(() => expect(errors.length).toBeGreaterThan(0));

    const second = await startTestServer({ dataDir, port });
    servers.push(second);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'after-restart' } } });
    await informer.start();
    await eventually(() => expect(informer.list().map((item) => item.metadata?.name).sort()).toEqual(['after-restart', 'before-restart']));
    await informer.stop();
  });

  it('ignores a torn last line, which was never acknowledged', async () => {
    const dataDir = temporary();
    const first = await start(dataDir);
    await call(first, 'POST', cms, { metadata: { name: 'whole' } });
    await first.stop();
    appendFileSync(join(dataDir, 'store.jsonl'), '{"t":"put","event":{"revision":99');
    const second = await start(dataDir);
    expect((await call(second, 'GET', `${cms}/whole`)).status).toBe(200);
    const created = await call(second, 'POST', cms, { metadata: { name: 'next' } });
    expect(created.status).toBe(201);
    await second.stop();
    const lines = readFileSync(join(dataDir, 'store.jsonl'), 'utf8').trim().split('\n');
    expect(() => lines.map((line) => JSON.parse(line))).not.toThrow();
    const third = await start(dataDir);
    await eventually(async () => expect((await call(third, 'GET', `${cms}/next`)).status).toBe(200));
  });
  it('refuses to start on a corrupt record before the last line, naming file and line, and changes nothing', async () => {
    const dataDir = temporary();
    const first = await start(dataDir);
    for (const name of ['a', 'b', 'c']) await call(first, 'POST', cms, { metadata: { name } });
    await first.stop();
    const path = join(dataDir, 'store.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    const middle = Math.floor(lines.length / 2);
    lines[middle] = lines[middle]!.slice(0, 20); // unparsable, and not the last line
    writeFileSync(path, lines.join('\n'));
    const before = readFileSync(path);
    const failure = await start(dataDir).then(
      () => undefined,
      (error: unknown) => error as { code?: string; message: string },
    );
    expect(failure?.code).toBe('OLM_APISERVER_DATA_DIR_CORRUPT');
    expect(failure?.message).toContain(`${path}:${middle + 1}: the data directory's log is corrupt: not a complete record`);
    expect(failure?.message).toContain(`head -n ${middle} ${path}`);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it('refuses a record that parses but is not one of the log\'s records', async () => {
    const dataDir = temporary();
    const first = await start(dataDir);
    await call(first, 'POST', cms, { metadata: { name: 'a' } });
    await first.stop();
    const path = join(dataDir, 'store.jsonl');
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    lines.splice(1, 0, '{"n":0,"c":"","r":{"t":"put","event":{"revision":"x"}}}');
    // Renumbered and checksummed again: the record itself is what is wrong.
    const framed = lines.map((line, index) => encodeRecordLine(index + 1, JSON.stringify((JSON.parse(line) as { r: unknown }).r)));
    writeFileSync(path, `${framed.join('\n')}\n`);
    await expect(start(dataDir)).rejects.toThrow(`${path}:2: the data directory's log is corrupt: a "put" record without a valid event`);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, startTestServer } from './helpers.js';
import { kubectl, kubectlMinorVersion, runKubectl } from './kubectl-client.js';

/**
 * ConfigMap data keys match `[-._a-zA-Z0-9]+` in Kubernetes, so `constructor`, `__proto__`,
 * `prototype` and `hasOwnProperty` are legal keys: they must be stored and patched as data, and no
 * body may reach Object.prototype on the way.
 */
const keys = ['constructor', '__proto__', 'prototype', 'hasOwnProperty', 'toString'];
const configMaps = '/api/v1/namespaces/default/configmaps';
const pollution = () => [...Object.getOwnPropertyNames(Object.prototype).filter((name) => name.startsWith('polluted')), ...Object.keys(Object.prototype)];
/** The `data` of a ConfigMap with every key set to `<key>-<suffix>`, as JSON text (an object literal would take `__proto__` as the prototype). */
const dataText = (suffix: string) => `{${keys.map((key) => `"${key}":"${key}-${suffix}"`).join(',')}}`;
const expectedData = (suffix: string) => JSON.parse(dataText(suffix)) as Record<string, string>;

describe('data keys named like JavaScript prototype properties', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startTestServer({ tls: true });
  });
  afterAll(() => server?.stop());

  it('creates, reads back and patches such keys with every patch type, reaching no prototype', async () => {
    const created = await call(server, 'POST', configMaps, `{"metadata":{"name":"keys"},"data":${dataText('created')}}`);
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual(expectedData('created'));
    expect((await call(server, 'GET', `${configMaps}/keys`)).body.data).toEqual(expectedData('created'));

    for (const [type, body, suffix] of [
      ['application/merge-patch+json', `{"data":${dataText('merge')}}`, 'merge'],
      ['application/strategic-merge-patch+json', `{"data":${dataText('strategic')}}`, 'strategic'],
      ['application/json-patch+json', JSON.stringify(keys.map((key) => ({ op: 'replace', path: `/data/${key}`, value: `${key}-json` }))), 'json'],
    ] as const) {
      const patched = await call(server, 'PATCH', `${configMaps}/keys`, body, { 'Content-Type': type });
      expect({ type, status: patched.status, data: patched.body.data }).toEqual({ type, status: 200, data: expectedData(suffix) });
    }
    const applied = await call(
      server,
      'PATCH',
      `${configMaps}/keys?fieldManager=tester&force=true`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keys\ndata:\n${keys.map((key) => `  ${key}: ${key}-apply\n`).join('')}`,
      { 'Content-Type': 'application/apply-patch+yaml' },
    );
    expect(applied.status).toBe(200);
    expect(applied.body.data).toEqual(expectedData('apply'));

    const removed = await call(server, 'PATCH', `${configMaps}/keys`, '{"data":{"__proto__":null,"constructor":null}}', { 'Content-Type': 'application/merge-patch+json' });
    expect(Object.keys(removed.body.data).sort()).toEqual(['hasOwnProperty', 'prototype', 'toString']);
    const moved = await call(server, 'PATCH', `${configMaps}/keys`, JSON.stringify([{ op: 'move', from: '/data/prototype', path: '/data/__proto__' }, { op: 'copy', from: '/data/__proto__', path: '/data/constructor' }]), {
      'Content-Type': 'application/json-patch+json',
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toEqual(JSON.parse('{"__proto__":"prototype-apply","constructor":"prototype-apply","hasOwnProperty":"hasOwnProperty-apply","toString":"toString-apply"}'));
    expect(pollution()).toEqual([]);
  });

  it('keeps hostile values as data, never as prototypes', async () => {
    const label = await call(server, 'POST', configMaps, '{"metadata":{"name":"hostile","labels":{"__proto__":"x"}},"data":{"a":"1"}}');
    // Label keys must start and end with an alphanumeric character, in Kubernetes too.
    expect(label.status).toBe(422);
    expect(label.body.message).toContain('metadata.labels: Invalid value: "__proto__"');
    expect((await call(server, 'POST', configMaps, '{"metadata":{"name":"hostile"},"data":{"a":"1"}}')).status).toBe(201);
    for (const body of ['{"__proto__":{"polluted":"merge"}}', '{"constructor":{"prototype":{"polluted":"merge"}}}', '{"data":{"__proto__":{"polluted":"merge"}}}']) {
      for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
        const response = await call(server, 'PATCH', `${configMaps}/hostile?dryRun=All`, body, { 'Content-Type': type });
        expect({ body, type, status: response.status < 500 }).toEqual({ body, type, status: true });
      }
    }
    const json = await call(server, 'PATCH', `${configMaps}/hostile?dryRun=All`, JSON.stringify([{ op: 'add', path: '/__proto__', value: { polluted: 'json' } }, { op: 'add', path: '/constructor', value: { prototype: { polluted: 'json' } } }]), {
      'Content-Type': 'application/json-patch+json',
    });
    expect(json.status).toBeLessThan(500);
    const through = await call(server, 'PATCH', `${configMaps}/hostile`, JSON.stringify([{ op: 'add', path: '/data/__proto__/polluted', value: 'json' }]), { 'Content-Type': 'application/json-patch+json' });
    expect(through.status).toBe(422);
    expect(through.body.message).toContain('doc is missing path: "/data/__proto__/polluted"');
    const yaml = await call(server, 'PATCH', `${configMaps}/hostile?fieldManager=tester`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hostile\ndata:\n  __proto__: yaml\n', {
      'Content-Type': 'application/apply-patch+yaml',
    });
    expect(yaml.status).toBe(200);
    const read = await call(server, 'GET', `${configMaps}/hostile`);
    expect(read.body.data).toEqual(JSON.parse('{"a":"1","__proto__":"yaml"}'));
    expect(pollution()).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  const minor = kubectlMinorVersion();
  it.skipIf(minor === undefined)(`keeps them through kubectl 1.${minor ?? '?'} (protobuf create, JSON reads, patches of each type)`, async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'olm-prototype-keys-'));
    const env = { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: join(workDir, 'cache'), HOME: workDir };
    const run = async (...args: string[]): Promise<string> => {
      const result = await runKubectl(args, { env, cwd: workDir });
      expect({ args, stderr: result.stderr, code: result.code }).toEqual({ args, stderr: '', code: 0 });
      return result.stdout;
    };
    const data = async (): Promise<Record<string, string>> => JSON.parse(await run('get', 'configmap', 'kubectl-keys', '-o', 'json')).data;
    try {
      await run('create', 'configmap', 'kubectl-keys', ...keys.map((key) => `--from-literal=${key}=${key}-created`));
      expect(await data()).toEqual(expectedData('created'));
      for (const [type, patch, suffix] of [
        ['merge', `{"data":${dataText('merge')}}`, 'merge'],
        ['strategic', `{"data":${dataText('strategic')}}`, 'strategic'],
        ['json', JSON.stringify(keys.map((key) => ({ op: 'replace', path: `/data/${key}`, value: `${key}-json` }))), 'json'],
      ] as const) {
        await run('patch', 'configmap', 'kubectl-keys', `--type=${type}`, `-p=${patch}`);
        expect(await data()).toEqual(expectedData(suffix));
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
    expect(pollution()).toEqual([]);
  });
});

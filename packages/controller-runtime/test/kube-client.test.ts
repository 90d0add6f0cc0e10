import { hasErrorCode } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlreadyExists, isConflict, isNotFound, RuntimeErrorCodes } from '../src/errors.js';
import type { KubeClient } from '../src/kube-client.js';
import { configMap, configMapKind, createNamespace, startServer } from './helpers.js';

let env: Awaited<ReturnType<typeof startServer>>;
let client: KubeClient;

beforeAll(async () => {
  env = await startServer();
  client = env.client();
  await createNamespace(client, 'kc');
});
afterAll(() => env?.stop());

describe('KubeClient against the local API server', () => {
  it('creates, reads, lists with a selector, pages, and deletes, as plain JSON', async () => {
    await client.create(configMap('kc', 'one', { a: '1' }, { app: 'x' }));
    await client.create(configMap('kc', 'two', { a: '2' }, { app: 'y' }));
    await client.create(configMap('kc', 'three', { a: '3' }, { app: 'x' }));
    const one = await client.get({ ...configMapKind, namespace: 'kc', name: 'one' });
    expect(typeof one.metadata?.['creationTimestamp']).toBe('string');
    const selected = await client.list(configMapKind, { namespace: 'kc', labelSelector: 'app=x' });
    expect(selected.items.map((item) => item.metadata?.name).sort()).toEqual(['one', 'three']);
    expect(selected.items[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(selected.resourceVersion).not.toBe('');
    const page = await client.list(configMapKind, { namespace: 'kc', limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.continue).toBeTruthy();
    const rest = await client.list(configMapKind, { namespace: 'kc', limit: 2, continue: page.continue });
    expect(rest.items).toHaveLength(1);
    await client.delete({ ...configMapKind, namespace: 'kc', name: 'two' });
    expect(await client.find({ ...configMapKind, namespace: 'kc', name: 'two' })).toBeUndefined();
  });

  it('reports API errors with stable codes and status helpers', async () => {
    const missing = await client.get({ ...configMapKind, namespace: 'kc', name: 'nope' }).catch((error: unknown) => error);
    expect(hasErrorCode(missing, RuntimeErrorCodes.kubeApi)).toBe(true);
    expect(isNotFound(missing)).toBe(true);
    const duplicate = await client.create(configMap('kc', 'one', {})).catch((error: unknown) => error);
    expect(isAlreadyExists(duplicate)).toBe(true);
    expect(isConflict(duplicate)).toBe(false);
    const stale = await client
      .replace({ ...configMap('kc', 'one', { a: 'x' }), metadata: { namespace: 'kc', name: 'one', resourceVersion: '1' } })
      .catch((error: unknown) => error);
    expect(isConflict(stale)).toBe(true);
    const unknown = await client.list({ apiVersion: 'nothing.example.com/v1', kind: 'Ghost' }).catch((error: unknown) => error);
    expect(hasErrorCode(unknown, RuntimeErrorCodes.unknownKind)).toBe(true);
  });

  it('server-side applies with a field manager, creating when absent', async () => {
    const applied = await client.apply(configMap('kc', 'applied', { k: 'v' }), { fieldManager: 'olm-test', force: true });
    expect(applied.data).toEqual({ k: 'v' });
    const managers = (applied.metadata?.['managedFields'] as Array<{ manager: string }> | undefined)?.map((entry) => entry.manager);
    expect(managers).toContain('olm-test');
    const again = await client.apply(configMap('kc', 'applied', { k: 'v2' }), { fieldManager: 'olm-test', force: true });
    expect(again.data).toEqual({ k: 'v2' });
  });


  it('keeps working across an API server restart (pooled connections are replaced)', async () => {
    const namespaceReference = { apiVersion: 'v1', kind: 'Namespace', name: 'default' };
    expect((await client.get(namespaceReference)).metadata?.name).toBe('default');
    await env.restart();
    expect((await client.get(namespaceReference)).metadata?.name).toBe('default');
    client.close();
    expect((await client.get(namespaceReference)).metadata?.name).toBe('default');
  });
});

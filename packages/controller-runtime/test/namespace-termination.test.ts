import type { CachedObject, Logger } from '@olm/core';
import { startApiServer, type ApiServer, type ServedRequest } from '@olm/local-apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../src/backoff.js';
import { KubeClient } from '../src/kube-client.js';
import { createManager } from '../src/manager.js';
import { isNamespaceTerminatingError, isTerminatingNamespace } from '../src/namespace-termination.js';
import { configMap, configMapKind, createNamespace, eventually } from './helpers.js';

const namespaceKind = { apiVersion: 'v1', kind: 'Namespace' };
const served: ServedRequest[] = [];
let server: ApiServer;
let client: KubeClient;

/** A namespace kept Terminating by a finalizer on a ConfigMap in it. */
async function terminatingNamespace(name: string): Promise<void> {
  await createNamespace(client, name);
  await client.create({ ...configMap(name, 'hold', {}), metadata: { namespace: name, name: 'hold', finalizers: ['example.com/hold'] } });
  await client.delete({ ...namespaceKind, name });
}

beforeAll(async () => {
  server = await startApiServer({ port: 0, onRequest: (request) => served.push(request) });
  client = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 5_000 });
});
afterAll(async () => {
  client?.close();
  await server?.stop();
});

describe('namespaces being deleted', () => {
  it('tells kube\'s refusal of new content in a terminating namespace from other errors, and a terminating namespace from a live one', async () => {
    await terminatingNamespace('ending');
    const refusal = await client.create(configMap('ending', 'late', {})).catch((error: unknown) => error);
    expect(isNamespaceTerminatingError(refusal)).toBe(true);
    expect(isNamespaceTerminatingError(await client.create(configMap('missing-namespace', 'late', {})).catch((error: unknown) => error))).toBe(false);
    await createNamespace(client, 'alive');
    expect(isNamespaceTerminatingError(await client.create(configMap('alive', 'cm', {})).then(() => client.create(configMap('alive', 'cm', {}))).catch((error: unknown) => error))).toBe(false);
    expect(isTerminatingNamespace(await client.get({ ...namespaceKind, name: 'ending' }))).toBe(true);
    expect(isTerminatingNamespace(await client.get({ ...namespaceKind, name: 'alive' }))).toBe(false);
    expect(isTerminatingNamespace({ metadata: { name: 'x' }, status: { phase: 'Terminating' } })).toBe(true);
    expect(isTerminatingNamespace(undefined)).toBe(false);
  });

  it('does not retry a reconcile that failed on a terminating namespace, and records no event there', async () => {
    await terminatingNamespace('closing');
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn: (message) => void warnings.push(message), error: (message) => void warnings.push(message), child: () => logger };
    const manager = createManager({ client, resyncPeriodMs: 0, logger });
    const attempts: string[] = [];
    manager.add({
      name: 'writer',
      for: configMapKind,
      // Namespaces cached, so that the event recorder knows which are terminating.
      watches: [{ ...namespaceKind, map: () => [] }],
      async reconcile({ namespace, name }) {
        if (namespace !== 'closing' || name !== 'hold') return;
        attempts.push(name);
        await client.create(configMap('closing', `made-${attempts.length}`, {}));
      },
    });
    await manager.start();
    try {
      await eventually(() => attempts.length > 0, { message: 'the reconcile ran' });
      await sleep(500); // the default backoff (5 ms, doubling) would have retried several times by now
      expect(attempts).toEqual(['hold']);
      expect(warnings).toEqual([]);

      const start = served.length;
      const held = (await client.get<CachedObject>({ ...configMapKind, namespace: 'closing', name: 'hold' }));
      await manager.eventRecorder('writer').warning(held, 'Testing', 'an event in a terminating namespace');
      expect(served.slice(start).filter((request) => request.resource === 'events').map((request) => `${request.verb} ${request.code}`)).toEqual([]);
      expect(warnings).toEqual([]);
    } finally {
      await manager.stop();
    }
  });
});

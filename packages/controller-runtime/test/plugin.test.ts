import { boot, contribute, definePlugin, informerCache, kubeClient, metrics, provision, reconcilers, type CachedObject } from '@olm/core';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '../src/kube-client.js';
import { createControllerRuntimePlugin } from '../src/plugin.js';
import { configMap, configMapKind, createNamespace, eventually, startServer } from './helpers.js';

let env: Awaited<ReturnType<typeof startServer>>;
let client: KubeClient;

beforeAll(async () => {
  env = await startServer();
  client = env.client();
  await createNamespace(client, 'plugin');
});
afterAll(() => env?.stop());

describe('controller-runtime plugin', () => {
  it('runs contributed reconcilers with leader election, counts into the metrics point, and releases the lease on stop', async () => {
    const seen: string[] = [];
    const toyPlugin = definePlugin({
      id: 'toy-controller',
      version: '1.0.0',
      provides: [reconcilers],
      init: () => ({
        provide: [
          contribute(reconcilers, {
            name: 'toy',
            for: configMapKind,
            async reconcile(request, reconcileContext) {
              if (request.namespace !== 'plugin') return;
              const object = reconcileContext.cache.get(configMapKind, request.name, request.namespace);
              if (object) seen.push(request.name);
            },
          }),
        ],
      }),
    });
    const registry = new Registry();
    const kernel = await boot({
      plugins: [
        createControllerRuntimePlugin({ leaderElection: { name: 'plugin-lease', leaseDurationMs: 1_000, retryPeriodMs: 100 } }),
        toyPlugin,
      ],
      provide: [provision(kubeClient, client), provision(metrics, registry)],
    });
    await client.create(configMap('plugin', 'hello', {}));
    await eventually(() => seen.includes('hello'), { message: 'reconciled through the kernel' });
    // The cache the reconcilers read is offered to other plugins as the informerCache point.
    expect(kernel.get(informerCache).get(configMapKind, 'hello', 'plugin')).toBeDefined();
    expect(kernel.plugins.map((plugin) => plugin.id)).toEqual(['toy-controller', 'controller-runtime']);
    const lease = await client.get<CachedObject & { spec: { holderIdentity?: string } }>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'default',
      name: 'plugin-lease',
    });
    expect(lease.spec.holderIdentity).toBeTruthy();
    expect(await registry.metrics()).toContain('controller_runtime_reconcile_total{controller="toy",result="success"}');
    expect(await registry.metrics()).toContain('leader_election_master_status{name="plugin-lease"} 1');
    await kernel.stop();
    const released = await client.get<CachedObject & { spec: { holderIdentity?: string } }>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'default',
      name: 'plugin-lease',
    });
    expect(released.spec.holderIdentity ?? '').toBe('');
    // The client is the app's: the kernel's stop left it open.
    expect(await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'plugin' })).toBeDefined();
  });

  it('fails at boot, before anything starts, when no kube client is provided', async () => {
    const error = await boot({ plugins: [createControllerRuntimePlugin()] }).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain('olm.kubeClient');
  });
});

import type { ReconcileContext, ReconcileRequest, Reconciler } from '@olm/core';
import { hasErrorCode } from '@olm/core';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { sleep } from './backoff.js';
import { assertReconciler, Controller } from './controller.js';
import { RuntimeErrorCodes, TerminalError } from './errors.js';
import { InformerCache } from './informer-cache.js';
import { KubeClient } from './kube-client.js';
import { createRuntimeMetrics } from './metrics.js';
import { ExponentialRateLimiter } from './rate-limiter.js';

// Never started: these tests feed the queue through enqueue(); informer wiring is covered in test/.
const unreachable = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'http://127.0.0.1:9', insecure-skip-tls-verify: true } }]
users: [{ name: u, user: {} }]
contexts: [{ name: x, context: { cluster: c, user: u, namespace: ns } }]
current-context: x
`;

const kind = { apiVersion: 'v1', kind: 'ConfigMap' };

function setup(reconcile: Reconciler['reconcile'], extra: Partial<Reconciler> = {}) {
  const registry = new Registry();
  const metrics = createRuntimeMetrics(registry);
  const cache = new InformerCache({ client: new KubeClient({ kubeconfig: unreachable }) });
  const controller = new Controller({
    reconciler: { name: 'toy', for: kind, reconcile, ...extra },
    cache,
    metrics,
    rateLimiter: () => new ExponentialRateLimiter(5, 50),
  });
  return { controller, registry, cache };
}

const until = async (condition: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
};

describe('Controller', () => {
  it('retries a failing key with backoff until it succeeds, passing the retry count', async () => {
    const seen: number[] = [];
    const { controller, registry } = setup(async (_request, context) => {
      seen.push(context.retries);
      if (seen.length < 3) throw new Error('not yet');
    });
    await controller.start();
    controller.enqueue({ namespace: 'ns', name: 'a' });
    await until(() => seen.length === 3);
    await sleep(80);
    expect(seen).toEqual([0, 1, 2]);
    await controller.stop();
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="toy",result="error"} 2');
    expect(text).toContain('controller_runtime_reconcile_total{controller="toy",result="success"} 1');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="toy"} 2');
    expect(text).toContain('workqueue_retries_total{name="toy",controller="toy"} 2');
  });

  it('exports its series at zero once started, and shows a reconcile in flight', async () => {
    let release: (() => void) | undefined;
    const { controller, registry } = setup(() => new Promise<void>((resolve) => (release = resolve)));
    await controller.start();
    const idle = await registry.metrics();
    for (const series of [
      'controller_runtime_reconcile_total{controller="toy",result="success"} 0',
      'controller_runtime_reconcile_total{controller="toy",result="error"} 0',
      'controller_runtime_reconcile_total{controller="toy",result="requeue_after"} 0',
      'controller_runtime_reconcile_errors_total{controller="toy"} 0',
      'controller_runtime_terminal_reconcile_errors_total{controller="toy"} 0',
      'controller_runtime_active_workers{controller="toy"} 0',
      'controller_runtime_max_concurrent_reconciles{controller="toy"} 1',
      'workqueue_depth{name="toy",controller="toy"} 0',
    ]) {
      expect(idle).toContain(series);
    }
    controller.enqueue({ namespace: 'ns', name: 'held' });
    await until(() => release !== undefined);
    await sleep(20);
    const busy = await registry.metrics();
    expect(busy).toContain('controller_runtime_active_workers{controller="toy"} 1');
    const longest = /workqueue_longest_running_processor_seconds\{name="toy",controller="toy"\} (\S+)/.exec(busy)?.[1];
    expect(Number(longest)).toBeGreaterThan(0);
    release!();
    await controller.stop();
    expect(await registry.metrics()).toContain('controller_runtime_reconcile_total{controller="toy",result="success"} 1');
  });

  it('does not retry a TerminalError, recognised by code even from a plain object', async () => {
    const calls: string[] = [];
    const { controller, registry } = setup(async (request) => {
      calls.push(request.name);
      if (request.name === 'terminal') throw new TerminalError('spec.install.strategy "x" is not supported');
      throw Object.assign(new Error('foreign copy'), { code: RuntimeErrorCodes.terminal });
    });
    await controller.start();
    controller.enqueue({ namespace: 'ns', name: 'terminal' });
    controller.enqueue({ namespace: 'ns', name: 'foreign' });
    await until(() => calls.length === 2);
    await sleep(100);
    expect(calls.sort()).toEqual(['foreign', 'terminal']);
    await controller.stop();
    expect(await registry.metrics()).toContain('controller_runtime_terminal_reconcile_errors_total{controller="toy"} 2');
  });

  it('requeues after requeueAfter, and survives a reconciler that throws synchronously', async () => {
    let runs = 0;
    const { controller, registry } = setup(((request: ReconcileRequest) => {
      if (request.name === 'sync-throw') throw new TerminalError('thrown before any await');
      runs += 1;
      return Promise.resolve(runs < 3 ? { requeueAfter: 20 } : {});
    }) as Reconciler['reconcile']);
    await controller.start();
    controller.enqueue({ name: 'sync-throw' });
    controller.enqueue({ namespace: 'ns', name: 'periodic' });
    await until(() => runs === 3);
    await controller.stop();
    const text = await registry.metrics();
    expect(text).toContain('result="requeue_after"} 2');
    expect(text).toContain('result="success"} 1');
  });

  it('runs up to maxConcurrentReconciles keys at once, never one key twice', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const running = new Set<string>();
    let overlap = false;
    let done = 0;
    const { controller } = setup(
      async (request) => {
        if (running.has(request.name)) overlap = true;
        running.add(request.name);
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(10);
        inFlight -= 1;
        running.delete(request.name);
        done += 1;
      },
      { maxConcurrentReconciles: 3 },
    );
    await controller.start();
    for (let round = 0; round < 5; round += 1) {
      for (let i = 0; i < 10; i += 1) controller.enqueue({ namespace: 'ns', name: `k${i}` });
      await sleep(3);
    }
    await until(() => controller.queueLength === 0 && inFlight === 0);
    await controller.stop();
    expect(overlap).toBe(false);
    expect(maxInFlight).toBe(3);
    expect(done).toBeGreaterThanOrEqual(10);
  });

  it('stop drains reconciles in flight and aborts their signal only after the timeout', async () => {
    let finished = false;
    let signal: AbortSignal | undefined;
    const { controller } = setup(async (_request, context: ReconcileContext) => {
      signal = context.signal;
      await sleep(150);
      finished = true;
    });
    await controller.start();
    controller.enqueue({ namespace: 'ns', name: 'slow' });
    await until(() => signal !== undefined);
    await controller.stop();
    expect(finished).toBe(true);
    expect(controller.isRunning).toBe(false);

    // A reconcile that outlives the timeout sees its signal abort, and stop still waits for it.
    let sawAbort = false;
    const second = setup(async (_request, context) => {
      await sleep(2_000, context.signal);
      sawAbort = context.signal.aborted;
    });
    await second.controller.start();
    second.controller.enqueue({ name: 'stuck' });
    await sleep(20);
    const started = Date.now();
    await second.controller.stop(50);
    expect(sawAbort).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('can start again after a stop (leadership regained)', async () => {
    const calls: string[] = [];
    const { controller } = setup(async (request) => void calls.push(request.name));
    await controller.start();
    controller.enqueue({ name: 'a' });
    await until(() => calls.length === 1);
    await controller.stop();
    controller.enqueue({ name: 'ignored-while-stopped' });
    await controller.start();
    controller.enqueue({ name: 'b' });
    await until(() => calls.length === 2);
    await controller.stop();
    expect(calls).toEqual(['a', 'b']);
  });

  it('reconciles what its event sources ask for while running, and unsubscribes on dispose', async () => {
    const calls: string[] = [];
    let emit: ((request: ReconcileRequest) => void) | undefined;
    let unsubscribed = 0;
    const { controller } = setup(async (request) => void calls.push(`${request.namespace}/${request.name}`), {
      eventSources: [
        {
          subscribe(enqueue) {
            emit = enqueue;
            return () => void (unsubscribed += 1);
          },
        },
      ],
    });
    emit!({ namespace: 'ns', name: 'before-start' });
    await controller.start();
    emit!({ namespace: 'ns', name: 'a' });
    emit!({ name: 'b' });
    await until(() => calls.length === 2);
    await controller.stop();
    emit!({ namespace: 'ns', name: 'while-stopped' });
    controller.dispose();
    expect(calls.sort()).toEqual(['ns/a', 'undefined/b']);
    expect(unsubscribed).toBe(1);
  });

  it('lets a /healthz request be served while its workers drain a queue of no-op reconciles', async () => {
    const keys = 100_000;
    let reconciled = 0;
    const { controller } = setup(async () => {
      reconciled++;
    });
    const server = createServer((_request, response) => response.end(JSON.stringify({ reconciled })));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await controller.start();
      for (let index = 0; index < keys; index++) controller.enqueue({ namespace: 'ns', name: `key-${index}` });
      const { port } = server.address() as AddressInfo;
      // Sent while the queue is full: without yielding, the answer would wait for the last key.
      const answer = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { reconciled: number };
      expect(answer.reconciled).toBeGreaterThan(0);
      expect(answer.reconciled).toBeLessThan(keys);
      await until(() => reconciled === keys, 60_000);
      await controller.stop();
    } finally {
      server.close();
    }
  }, 90_000);

  it('reads the cache only for kinds an informer watches', () => {
    const { cache } = setup(async () => {});
    expect(cache.list(kind)).toEqual([]);
    let error: unknown;
    try {
      cache.get({ apiVersion: 'v1', kind: 'Secret' }, 'x', 'ns');
    } catch (caught) {
      error = caught;
    }
    expect(hasErrorCode(error, RuntimeErrorCodes.kindNotCached)).toBe(true);
  });

  it('rejects a malformed reconciler with a readable message', () => {
    expect(() => assertReconciler({ name: '', for: { apiVersion: 'v1', kind: '' } } as unknown as Reconciler)).toThrowError(
      'a reconciler needs a non-empty name, for: { apiVersion, kind }, a reconcile() function',
    );
  });
});

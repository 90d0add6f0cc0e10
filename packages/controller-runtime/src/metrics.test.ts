import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createRuntimeMetrics } from './metrics.js';
import { WorkQueue } from './work-queue.js';

describe('createRuntimeMetrics', () => {
  it('registers controller-runtime names once per registry and reports queue activity', async () => {
    const registry = new Registry();
    const metrics = createRuntimeMetrics(registry);
    expect(createRuntimeMetrics(registry)).toBe(metrics);
    metrics.reconcileTotal.inc({ controller: 'csv', result: 'success' });
    metrics.reconcileErrors.inc({ controller: 'csv' });
    metrics.reconcileTime.observe({ controller: 'csv' }, 0.02);
    const queue = new WorkQueue({ name: 'csv', metrics: metrics.workQueue('csv') });
    queue.add('a');
    queue.add('b');
    const text1 = await registry.metrics();
    expect(text1).toContain('workqueue_depth{name="csv"} 2');
    expect(text1).toContain('workqueue_adds_total{name="csv"} 2');
    const key = await queue.get();
    queue.done(key!);
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="csv",result="success"} 1');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="csv"} 1');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_count{controller="csv"} 1');
    expect(text).toContain('workqueue_depth{name="csv"} 1');
    expect(text).toContain('workqueue_queue_duration_seconds_count{name="csv"} 1');
    expect(text).toContain('workqueue_work_duration_seconds_count{name="csv"} 1');
    queue.shutDown();
  });

  it('keeps registries apart', async () => {
    const first = createRuntimeMetrics(new Registry());
    const second = createRuntimeMetrics(new Registry());
    first.reconcileErrors.inc({ controller: 'x' });
    expect(await second.registry.metrics()).not.toContain('controller="x"');
  });
});

import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { sleep } from './backoff.js';
import { createRuntimeMetrics } from './metrics.js';
import { WorkQueue } from './work-queue.js';

/** The value of one series in Prometheus text, or undefined when absent. */
const valueOf = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

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
    expect(text1).toContain('workqueue_depth{name="csv",controller="csv"} 2');
    expect(text1).toContain('workqueue_adds_total{name="csv",controller="csv"} 2');
    expect(text1).toContain('workqueue_retries_total{name="csv",controller="csv"} 0');
    const key = await queue.get();
    queue.done(key!);
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="csv",result="success"} 1');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="csv"} 1');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_count{controller="csv"} 1');
    expect(text).toContain('workqueue_depth{name="csv",controller="csv"} 1');
    expect(text).toContain('workqueue_queue_duration_seconds_count{name="csv",controller="csv"} 1');
    expect(text).toContain('workqueue_work_duration_seconds_count{name="csv",controller="csv"} 1');
    // controller-runtime's bucket layout for queue timings: 10 ns up to 1000 s by powers of ten.
    expect(text).toContain('workqueue_work_duration_seconds_bucket{le="1e-8",name="csv",controller="csv"}');
    expect(text).toContain('workqueue_work_duration_seconds_bucket{le="1000",name="csv",controller="csv"} 1');
    queue.shutDown();
  });

  it('reports work in process when scraped: unfinished seconds and the longest running key', async () => {
    const registry = new Registry();
    const metrics = createRuntimeMetrics(registry);
    const queue = new WorkQueue({ name: 'slow', metrics: metrics.workQueue('slow') });
    const idle = await registry.metrics();
    expect(valueOf(idle, 'workqueue_unfinished_work_seconds{name="slow",controller="slow"}')).toBe(0);
    expect(valueOf(idle, 'workqueue_longest_running_processor_seconds{name="slow",controller="slow"}')).toBe(0);

    queue.add('first');
    expect(await queue.get()).toBe('first');
    await sleep(60);
    queue.add('second');
    expect(await queue.get()).toBe('second');
    await sleep(40);
    const busy = await registry.metrics();
    const unfinished = valueOf(busy, 'workqueue_unfinished_work_seconds{name="slow",controller="slow"}')!;
    const longest = valueOf(busy, 'workqueue_longest_running_processor_seconds{name="slow",controller="slow"}')!;
    // Two keys held, one about 100 ms and one about 40 ms.
    expect(longest).toBeGreaterThanOrEqual(0.09);
    expect(unfinished).toBeGreaterThan(longest);

    queue.done('first');
    queue.done('second');
    const done = await registry.metrics();
    expect(valueOf(done, 'workqueue_unfinished_work_seconds{name="slow",controller="slow"}')).toBe(0);
    expect(valueOf(done, 'workqueue_longest_running_processor_seconds{name="slow",controller="slow"}')).toBe(0);
    queue.shutDown();
  });

  it('keeps registries apart', async () => {
    const first = createRuntimeMetrics(new Registry());
    const second = createRuntimeMetrics(new Registry());
    first.reconcileErrors.inc({ controller: 'x' });
    expect(await second.registry.metrics()).not.toContain('controller="x"');
  });
});

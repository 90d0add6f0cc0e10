import { describe, expect, it } from 'vitest';
import { sleep } from './backoff.js';
import { ExponentialRateLimiter } from './rate-limiter.js';
import { WorkQueue, type WorkQueueMetrics } from './work-queue.js';

const recordingMetrics = () => {
  const seen = { added: 0, depth: [] as number[], queued: 0, worked: 0, retried: 0 };
  const metrics: WorkQueueMetrics = {
    added: () => void (seen.added += 1),
    depth: (size) => void seen.depth.push(size),
    queued: () => void (seen.queued += 1),
    worked: () => void (seen.worked += 1),
    retried: () => void (seen.retried += 1),
  };
  return { seen, metrics };
};

describe('WorkQueue', () => {
  it('hands out a key added many times once, in FIFO order', async () => {
    const { seen, metrics } = recordingMetrics();
    const queue = new WorkQueue({ metrics });
    for (const key of ['a', 'b', 'a', 'c', 'b', 'a']) queue.add(key);
    expect(queue.length).toBe(3);
    expect([await queue.get(), await queue.get(), await queue.get()]).toEqual(['a', 'b', 'c']);
    expect(queue.length).toBe(0);
    expect(seen.added).toBe(3);
    expect(seen.queued).toBe(3);
  });

  it('holds a key re-added while in process until done, then hands it out again once', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const first = await queue.get();
    expect(first).toBe('a');
    queue.add('a');
    queue.add('a');
    expect(queue.length).toBe(0);
    let second: string | undefined;
    void queue.get().then((key) => (second = key));
    await sleep(5);
    expect(second).toBeUndefined();
    queue.done('a');
    await sleep(0);
    expect(second).toBe('a');
    queue.done('a');
    expect(queue.length).toBe(0);
  });

  it('wakes a waiting worker when a key arrives', async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.add('late');
    expect(await waiting).toBe('late');
  });

  it('addAfter delays a key and keeps the earliest of several delays', async () => {
    const queue = new WorkQueue();
    queue.addAfter('a', 10_000);
    queue.addAfter('a', 20);
    queue.addAfter('a', 5_000);
    expect(queue.length).toBe(0);
    const started = Date.now();
    expect(await queue.get()).toBe('a');
    expect(Date.now() - started).toBeLessThan(4_000);
    queue.shutDown();
  });

  it('addRateLimited backs off per key and forget resets the key', async () => {
    const { seen, metrics } = recordingMetrics();
    const queue = new WorkQueue({ rateLimiter: new ExponentialRateLimiter(1, 1000), metrics });
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    expect(queue.retries('a')).toBe(2);
    expect(await queue.get()).toBe('a');
    queue.forget('a');
    expect(queue.retries('a')).toBe(0);
    expect(seen.retried).toBe(2);
    queue.shutDown();
  });

  it('after shutDown hands out nothing, wakes waiters, and drain waits for keys in process', async () => {
    const queue = new WorkQueue();
    queue.add('busy');
    queue.add('queued');
    queue.addAfter('delayed', 10);
    expect(await queue.get()).toBe('busy');
    const idleWorker = new WorkQueue();
    const idle = idleWorker.get();
    idleWorker.shutDown();
    expect(await idle).toBeUndefined();

    let drained = false;
    const draining = queue.drain().then(() => (drained = true));
    expect(await queue.get()).toBeUndefined();
    queue.add('after');
    await sleep(20);
    expect(drained).toBe(false);
    expect(queue.length).toBe(0);
    queue.done('busy');
    await draining;
    expect(drained).toBe(true);
  });

  it('never runs one key on two workers at once, and processes every key added after its last start (property test)', async () => {
    for (let round = 0; round < 5; round += 1) {
      const queue = new WorkQueue();
      const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
      const running = new Set<string>();
      const lastAddAt = new Map<string, number>();
      const lastStartAt = new Map<string, number>();
      let clock = 0;
      let overlaps = 0;
      let processed = 0;
      const worker = async () => {
        for (;;) {
          const key = await queue.get();
          if (key === undefined) return;
          if (running.has(key)) overlaps += 1;
          running.add(key);
          lastStartAt.set(key, (clock += 1));
          await sleep(Math.random() < 0.5 ? 0 : 1);
          running.delete(key);
          processed += 1;
          queue.done(key);
        }
      };
      const workers = Array.from({ length: 6 }, worker);
      for (let i = 0; i < 400; i += 1) {
        const key = keys[Math.floor(Math.random() * keys.length)]!;
        lastAddAt.set(key, (clock += 1));
        queue.add(key);
        if (i % 7 === 0) await sleep(0);
      }
      // Let everything settle, then stop.
      while (queue.length > 0 || queue.processingCount > 0) await sleep(2);
      await queue.drain();
      await Promise.all(workers);
      expect(overlaps).toBe(0);
      expect(processed).toBeGreaterThan(0);
      for (const [key, addedAt] of lastAddAt) expect(lastStartAt.get(key)!).toBeGreaterThan(addedAt);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { sleep } from './backoff.js';
import { LeaderElector, MemoryLeaseStore, type LeaseStore } from './leader-election.js';

const elector = (store: LeaseStore, identity: string, clock: { now: number }, extra: Partial<ConstructorParameters<typeof LeaderElector>[0]> = {}) =>
  new LeaderElector({
    store,
    identity,
    leaseDurationMs: 10_000,
    onStartedLeading: () => {},
    now: () => clock.now,
    ...extra,
  });

describe('LeaderElector.tryAcquireOrRenew', () => {
  it('creates the lease, keeps others out while it is renewed, and lets them in once it expires', async () => {
    const store = new MemoryLeaseStore();
    const clock = { now: 1_000_000 };
    const a = elector(store, 'a', clock);
    const b = elector(store, 'b', clock);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    expect(b.leader).toBe('a');
    clock.now += 8_000;
    expect(await a.tryAcquireOrRenew()).toBe(true); // renewed: b sees a new version and restarts its wait
    clock.now += 8_000;
    expect(await b.tryAcquireOrRenew()).toBe(false);
    clock.now += 10_001; // a stopped renewing 10 s ago as b measures it
    expect(await b.tryAcquireOrRenew()).toBe(true);
    const lease = await store.get();
    expect(lease?.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1, leaseDurationSeconds: 10 });
    expect(await a.tryAcquireOrRenew()).toBe(false);
  });

  it('hands the lease over at once after release', async () => {
    const store = new MemoryLeaseStore();
    const clock = { now: 5_000 };
    const a = elector(store, 'a', clock);
    const b = elector(store, 'b', clock);
    await a.tryAcquireOrRenew();
    expect(await b.tryAcquireOrRenew()).toBe(false);
    expect(await b.release()).toBe(false); // not the holder
    expect(await a.release()).toBe(true);
    expect((await store.get())?.record.holderIdentity).toBe('');
    expect(await b.tryAcquireOrRenew()).toBe(true);
  });
});

describe('LeaderElector.run', () => {
  it('one of two replicas leads; a follower takes over when the leader dies, and right away on a clean release', async () => {
    const store = new MemoryLeaseStore();
    const log: string[] = [];
    const replica = (identity: string, releaseOnCancel = true) => {
      const abort = new AbortController();
      const instance = new LeaderElector({
        store,
        identity,
        leaseDurationMs: 2_000,
        renewDeadlineMs: 1_500,
        retryPeriodMs: 100,
        releaseOnCancel,
        onStartedLeading: () => void log.push(`${identity} leads`),
        onStoppedLeading: () => void log.push(`${identity} stops`),
      });
      return { instance, abort, done: instance.run(abort.signal) };
    };
    const a = replica('a', false); // a will "crash": stop renewing without releasing
    await sleep(150);
    const b = replica('b');
    const c = replica('c');
    await sleep(300);
    expect(log).toEqual(['a leads']);
    expect([a.instance.isLeader, b.instance.isLeader, c.instance.isLeader]).toEqual([true, false, false]);

    const diedAt = Date.now();
    a.abort.abort();
    await a.done;
    while (!b.instance.isLeader && !c.instance.isLeader) {
      expect(Date.now() - diedAt).toBeLessThan(8_000);
      await sleep(20);
    }
    const takeover = Date.now() - diedAt;
    expect(takeover).toBeGreaterThanOrEqual(1_500);
    const [leader, follower] = b.instance.isLeader ? [b, c] : [c, b];
    expect(follower.instance.isLeader).toBe(false);

    // Clean shutdown: release, and the follower takes over well within the lease duration.
    const releasedAt = Date.now();
    leader.abort.abort();
    await leader.done;
    while (!follower.instance.isLeader) {
      expect(Date.now() - releasedAt).toBeLessThan(1_500); // the lease would last 2 s
      await sleep(10);
    }
    follower.abort.abort();
    await follower.done;
    expect((await store.get())?.record.holderIdentity).toBe('');
    expect(log.filter((line) => line.endsWith('leads'))).toHaveLength(3);
    expect(log.filter((line) => line.endsWith('stops'))).toHaveLength(3);
  });

  it('steps down when it cannot renew within the renew deadline', async () => {
    const inner = new MemoryLeaseStore();
    let broken = false;
    const store: LeaseStore = {
      description: 'flaky',
      get: () => (broken ? Promise.reject(new Error('connection refused')) : inner.get()),
      create: (record) => inner.create(record),
      update: (record, version) => (broken ? Promise.reject(new Error('connection refused')) : inner.update(record, version)),
    };
    let stopped = false;
    let leadershipSignal: AbortSignal | undefined;
    const abort = new AbortController();
    const instance = new LeaderElector({
      store,
      identity: 'a',
      leaseDurationMs: 1_000,
      renewDeadlineMs: 300,
      retryPeriodMs: 50,
      onStartedLeading: (signal) => void (leadershipSignal = signal),
      onStoppedLeading: () => void (stopped = true),
    });
    const running = instance.run(abort.signal);
    await sleep(100);
    expect(instance.isLeader).toBe(true);
    broken = true;
    await sleep(600);
    expect(stopped).toBe(true);
    expect(leadershipSignal?.aborted).toBe(true);
    expect(instance.isLeader).toBe(false);
    broken = false;
    await sleep(300);
    expect(instance.isLeader).toBe(true); // campaigns again and wins its own lease back
    abort.abort();
    await running;
  });
});

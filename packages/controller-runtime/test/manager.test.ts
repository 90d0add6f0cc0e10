import { hasErrorCode, type CachedObject, type Reconciler } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../src/backoff.js';
import { RuntimeErrorCodes, TerminalError } from '../src/errors.js';
import type { KubeClient } from '../src/kube-client.js';
import { createManager, type Manager, type ManagerOptions } from '../src/manager.js';
import { setOwnerLabels, setOwnerReference, type OwnerObject } from '../src/owner-mapper.js';
import { formatMicroTime } from '@olm/go-format';
import { updateObject, updateStatus } from '../src/status-update.js';
import { configMap, configMapKind, createNamespace, eventually, installToyCrd, startServer, toyKind } from './helpers.js';

let env: Awaited<ReturnType<typeof startServer>>;
let client: KubeClient;
const managers: Manager[] = [];

beforeAll(async () => {
  env = await startServer({ durable: true });
  client = env.client();
  for (const namespace of ['copy', 'restart', 'conflict', 'midway', 'leader', 'bad', 'owners', 'parallel', 'stolen', 'resync', 'accepts']) await createNamespace(client, namespace);
  await installToyCrd(client);
});
afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.stop()));
  await env?.stop();
});

function manager(options: Partial<ManagerOptions> = {}): Manager {
  const created = createManager({
    kubeconfig: env.kubeconfig,
    informerBackoff: { initialMs: 20, maxMs: 300 },
    resyncPeriodMs: 0,
    gracefulShutdownTimeoutMs: 2_000,
    ...options,
  });
  managers.push(created);
  return created;
}

type ConfigMap = CachedObject & { data?: Record<string, string> };

/** The toy reconciler: a ConfigMap labelled copy=yes in namespace `namespace` is copied to `<name>-copy`. */
function copier(namespace: string, options: { name?: string; onReconcile?: (name: string) => void } = {}): Reconciler {
  return {
    name: options.name ?? `copier-${namespace}`,
    for: configMapKind,
    owns: [configMapKind],
    async reconcile(request, context) {
      if (request.namespace !== namespace) return;
      options.onReconcile?.(request.name);
      const source = context.cache.get(configMapKind, request.name, request.namespace) as ConfigMap | undefined;
      if (!source || source.metadata?.labels?.['copy'] !== 'yes') return;
      const target: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name: `${request.name}-copy` }, data: source.data ?? {} };
      setOwnerLabels(target, source as OwnerObject);
      setOwnerReference(target, source as OwnerObject, { controller: true });
      await client.apply(target, { fieldManager: 'copier', force: true });
    },
  };
}

const copyData = async (namespace: string, name: string) =>
  ((await client.find<ConfigMap>({ ...configMapKind, namespace, name: `${name}-copy` }))?.data ?? undefined);

describe('Manager with a toy reconciler against the local API server', () => {
  it('converges: copies on create, follows updates, and repairs a tampered owned object', async () => {
    const runtime = manager();
    runtime.add(copier('copy'));
    await client.create(configMap('copy', 'existing', { a: '1' }, { copy: 'yes' }));
    await runtime.start();
    expect(await eventually(() => copyData('copy', 'existing'))).toEqual({ a: '1' });

    await client.create(configMap('copy', 'new', { b: '1' }, { copy: 'yes' }));
    expect(await eventually(() => copyData('copy', 'new'))).toEqual({ b: '1' });
    await client.patch({ ...configMapKind, namespace: 'copy', name: 'new' }, { data: { b: '2' } });
    await eventually(async () => (await copyData('copy', 'new'))?.['b'] === '2');

    // Someone edits the copy: the owner mapping reconciles the source, which puts it back.
    await client.patch({ ...configMapKind, namespace: 'copy', name: 'new-copy' }, { data: { b: 'tampered' } });
    await eventually(async () => (await copyData('copy', 'new'))?.['b'] === '2', { message: 'copy repaired' });

    const metrics = await runtime.metrics.registry.metrics();
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="copier-copy",result="success"\} \d+/);
    expect(metrics).toContain('workqueue_depth{name="copier-copy",controller="copier-copy"}');
    expect(metrics).toContain('controller_runtime_reconcile_time_seconds_bucket');
    await runtime.stop();
  });

  it('converges after the watch is dropped by an API server restart', async () => {
    const runtime = manager();
    runtime.add(copier('restart'));
    await runtime.start();
    await client.create(configMap('restart', 'before', { v: '1' }, { copy: 'yes' }));
    await eventually(() => copyData('restart', 'before'));

    await env.restart(200);
    const fresh = env.client();
    await fresh.patch({ ...configMapKind, namespace: 'restart', name: 'before' }, { data: { v: '2' } });
    await fresh.create(configMap('restart', 'after', { w: '1' }, { copy: 'yes' }));
    await eventually(async () => (await copyData('restart', 'before'))?.['v'] === '2', { timeoutMs: 15_000 });
    expect(await eventually(() => copyData('restart', 'after'), { timeoutMs: 15_000 })).toEqual({ w: '1' });
    expect(runtime.cache.all.some((informer) => informer.stats.errors > 0)).toBe(true);
    await runtime.stop();
  });

  it('converges through conflicts: status follows spec while another writer keeps changing it', async () => {
    type Toy = CachedObject & { spec?: { value?: string }; status?: { copied?: string; observedGeneration?: number } };
    let statusWrites = 0;
    const runtime = manager();
    // Two controllers write two fields of one status while the spec keeps changing: every write
    // races the others, and each must re-read and re-apply on 409 Conflict.
    runtime.add({
      name: 'toy-status',
      for: toyKind,
      async reconcile(request) {
        await updateStatus<Toy>(client, { ...toyKind, name: request.name, namespace: request.namespace! }, (toy) => {
          if (toy.status?.copied === toy.spec?.value) return false;
          statusWrites += 1;
          toy.status = { ...toy.status, copied: toy.spec?.value };
        });
      },
    });
    runtime.add({
      name: 'toy-generation',
      for: toyKind,
      async reconcile(request) {
        await updateStatus<Toy>(client, { ...toyKind, name: request.name, namespace: request.namespace! }, (toy) => {
          if (toy.status?.observedGeneration === toy.metadata?.generation) return false;
          toy.status = { ...toy.status, observedGeneration: toy.metadata?.generation };
        });
      },
    });
    await runtime.start();
    await client.create({ ...toyKind, metadata: { namespace: 'conflict', name: 'busy' }, spec: { value: 'v0' } });
    for (let i = 1; i <= 15; i += 1) {
      await client.patch({ ...toyKind, namespace: 'conflict', name: 'busy' }, { spec: { value: `v${i}` } });
      await sleep(3);
    }
    const settled = await eventually(
      async () => {
        const toy = await client.get<Toy>({ ...toyKind, namespace: 'conflict', name: 'busy' });
        return toy.status?.copied === 'v15' && toy.status.observedGeneration === toy.metadata?.generation ? toy : undefined;
      },
      { message: 'status caught up with spec' },
    );
    expect(settled.status?.copied).toBe('v15');
    expect(statusWrites).toBeGreaterThan(0);
    // Both controllers watch Toys through one shared informer: one list, one watch.
    const toyInformers = runtime.cache.all.filter((informer) => informer.kind.kind === 'Toy');
    expect(toyInformers).toHaveLength(1);
    expect(toyInformers[0]!.stats).toMatchObject({ lists: 1, watches: 1, errors: 0 });
    await runtime.stop();
  });

  it('converges when restarted mid-way through a two-step reconcile (idempotent writes)', async () => {
    type Toy = CachedObject & { spec?: { value?: string }; status?: { copied?: string } };
    let blockAfterFirstStep = true;
    const twoSteps = (): Reconciler => ({
      name: 'two-steps',
      for: toyKind,
      async reconcile(request, context) {
        const toy = context.cache.get(toyKind, request.name, request.namespace) as Toy | undefined;
        if (!toy || request.namespace !== 'midway') return;
        // Step 1: the ConfigMap, by server-side apply (safe to repeat).
        await client.apply(configMap('midway', `${request.name}-data`, { value: toy.spec?.value ?? '' }), { fieldManager: 'two-steps', force: true });
        if (blockAfterFirstStep) {
          // The process "dies" here: wait until shutdown aborts us, then fail.
          await sleep(60_000, context.signal);
          throw new Error('interrupted');
        }
        // Step 2: the status.
        await updateStatus<Toy>(client, { ...toyKind, namespace: 'midway', name: request.name }, (current) => {
          current.status = { copied: current.spec?.value };
        });
      },
    });
    const first = manager({ gracefulShutdownTimeoutMs: 100 });
    first.add(twoSteps());
    await first.start();
    await client.create({ ...toyKind, metadata: { namespace: 'midway', name: 'job' }, spec: { value: 'x' } });
    await eventually(() => client.find({ ...configMapKind, namespace: 'midway', name: 'job-data' }));
    await first.stop();
    const half = await client.get<Toy>({ ...toyKind, namespace: 'midway', name: 'job' });
    expect(half.status?.copied).toBeUndefined();

    blockAfterFirstStep = false;
    const second = manager();
    second.add(twoSteps());
    await second.start();
    await eventually(async () => (await client.get<Toy>({ ...toyKind, namespace: 'midway', name: 'job' })).status?.copied === 'x');
    await second.stop();
  });

  it('reconciles unchanged objects again on every resync period (the level-based safety net)', async () => {
    const counts = new Map<string, number>();
    await client.create(configMap('resync', 'quiet', {}));
    const runtime = manager({ resyncPeriodMs: 150 });
    runtime.add({
      name: 'resynced',
      for: configMapKind,
      async reconcile(request) {
        if (request.namespace === 'resync') counts.set(request.name, (counts.get(request.name) ?? 0) + 1);
      },
    });
    await runtime.start();
    await eventually(() => (counts.get('quiet') ?? 0) >= 3, { message: 'three reconciles without any change' });
    await runtime.stop();
  });

  it('queues only the objects its accepts() admits, at start and on events', async () => {
    const reconciled: string[] = [];
    await client.create(configMap('accepts', 'skipped-before', {}, { skip: 'yes' }));
    await client.create(configMap('accepts', 'kept-before', {}));
    const runtime = manager();
    runtime.add({
      name: 'accepting',
      for: configMapKind,
      accepts: (object) => object.metadata?.labels?.['skip'] !== 'yes',
      async reconcile(request) {
        if (request.namespace === 'accepts') reconciled.push(request.name);
      },
    });
    await runtime.start();
    await client.create(configMap('accepts', 'skipped-after', {}, { skip: 'yes' }));
    await client.create(configMap('accepts', 'kept-after', {}));
    // One worker takes keys in order: the skipped ones, had they been queued, would come first.
    await eventually(() => reconciled.includes('kept-after'), { message: 'the last admitted ConfigMap reconciled' });
    expect(reconciled).toContain('kept-before');
    expect(reconciled.filter((name) => name.startsWith('skipped'))).toEqual([]);
    await runtime.stop();
  });

  it('maps changes of another kind to requests with an arbitrary watch mapper', async () => {
    const reconciled: string[] = [];
    const runtime = manager();
    runtime.add({
      name: 'toy-by-configmap',
      for: toyKind,
      watches: [
        {
          ...configMapKind,
          // A ConfigMap labelled toy=<name> concerns that Toy.
          map: (object) => {
            const toy = object.metadata?.labels?.['toy'];
            return toy ? [{ namespace: object.metadata?.namespace, name: toy }] : [];
          },
        },
      ],
      async reconcile(request) {
        if (request.namespace === 'mapped') reconciled.push(request.name);
      },
    });
    await createNamespace(client, 'mapped');
    await runtime.start();
    await client.create(configMap('mapped', 'settings', { a: '1' }, { toy: 'target' }));
    await eventually(() => reconciled.includes('target'), { message: 'mapped request reconciled' });
    await runtime.stop();
  });

  it('stop during start leaves nothing running', async () => {
    let calls = 0;
    const runtime = manager();
    runtime.add({ name: 'early-stop', for: configMapKind, reconcile: async () => void (calls += 1) });
    const starting = runtime.start();
    await runtime.stop();
    await starting;
    await sleep(100);
    expect(runtime.isLeader).toBe(false);
    expect(calls).toBe(0);
  });

  it('fails start with a coded error naming the cause when a watched kind is not served', async () => {
    const runtime = manager({ cacheSyncTimeoutMs: 500 });
    runtime.add({ name: 'ghost', for: { apiVersion: 'ghosts.example.com/v1', kind: 'Ghost' }, reconcile: async () => {} });
    const error = await runtime.start().catch((caught: unknown) => caught);
    expect(hasErrorCode(error, RuntimeErrorCodes.cacheSyncTimeout)).toBe(true);
    expect((error as Error).message).toContain('is its CRD installed?');
  });

  it('one bad object never stops the others: errors retry, terminal errors do not', async () => {
    const attempts = new Map<string, number>();
    const runtime = manager();
    runtime.add({
      name: 'picky',
      for: configMapKind,
      maxConcurrentReconciles: 2,
      async reconcile(request) {
        if (request.namespace !== 'bad') return;
        attempts.set(request.name, (attempts.get(request.name) ?? 0) + 1);
        if (request.name === 'poison') throw new Error('cannot parse');
        if (request.name === 'hopeless') throw new TerminalError('unsupported');
        await client.apply(configMap('bad', `${request.name}-ok`, {}), { fieldManager: 'picky' });
      },
    });
    await runtime.start();
    await client.create(configMap('bad', 'poison', {}));
    await client.create(configMap('bad', 'hopeless', {}));
    await client.create(configMap('bad', 'fine', {}));
    await eventually(() => client.find({ ...configMapKind, namespace: 'bad', name: 'fine-ok' }));
    await eventually(() => (attempts.get('poison') ?? 0) >= 3, { message: 'poison retried' });
    const hopeless = attempts.get('hopeless');
    await sleep(200);
    expect(attempts.get('hopeless')).toBe(hopeless);
    expect(runtime.isLeader).toBe(true);
    await runtime.stop();
  });

  it('maps a cluster-scoped dependent back to its namespaced owner through OLM owner labels alone', async () => {
    type Toy = CachedObject & { spec?: { value?: string } };
    type ClusterRole = CachedObject & { rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> };
    const clusterRoleKind = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' } as const;
    const requests: string[] = [];
    const runtime = manager();
    runtime.add({
      name: 'toy-cluster-role',
      for: toyKind,
      owns: [clusterRoleKind],
      async reconcile(request, context) {
        if (request.namespace !== 'owners') return;
        requests.push(`${request.namespace}/${request.name}`);
        const toy = context.cache.get(toyKind, request.name, request.namespace) as Toy | undefined;
        if (!toy) return;
        // A ClusterRole cannot carry an ownerReference to a namespaced object: OLM labels it instead.
        const role: ClusterRole = {
          ...clusterRoleKind,
          metadata: { name: `toy-${request.namespace}-${request.name}` },
          rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: [toy.spec?.value ?? 'get'] }],
        };
        setOwnerLabels(role, toy as OwnerObject);
        await client.apply(role, { fieldManager: 'toy-cluster-role', force: true });
      },
    });
    await runtime.start();
    await client.create({ ...toyKind, metadata: { namespace: 'owners', name: 'lab' }, spec: { value: 'list' } });
    const roleReference = { ...clusterRoleKind, name: 'toy-owners-lab' };
    const verbs = async () => (await client.find<ClusterRole>(roleReference))?.rules?.[0]?.verbs;
    expect(await eventually(verbs)).toEqual(['list']);
    const role = await client.get<ClusterRole>(roleReference);
    expect(role.metadata?.ownerReferences ?? []).toEqual([]);
    expect(role.metadata?.labels).toMatchObject({ 'olm.owner': 'lab', 'olm.owner.namespace': 'owners', 'olm.owner.kind': 'Toy' });

    // Someone edits the ClusterRole: only the owner labels lead back to the Toy, which puts it back.
    const before = requests.length;
    await client.patch(roleReference, { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] }] });
    await eventually(async () => (await verbs())?.[0] === 'list', { message: 'cluster role repaired' });
    expect(requests.slice(before)).toContain('owners/lab');
    await runtime.stop();
  });

  it('never runs one key on two workers while many changes race through four workers', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `key-${i}`);
    const running = new Set<string>();
    let overlaps = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const lastSeenVersion = new Map<string, string>();
    const runtime = manager();
    runtime.add({
      name: 'parallel',
      for: configMapKind,
      maxConcurrentReconciles: 4,
      async reconcile(request, context) {
        if (request.namespace !== 'parallel') return;
        if (running.has(request.name)) overlaps += 1;
        running.add(request.name);
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          const object = context.cache.get(configMapKind, request.name, request.namespace);
          await sleep(5 + Math.random() * 15);
          if (object?.metadata?.resourceVersion) lastSeenVersion.set(request.name, object.metadata.resourceVersion);
        } finally {
          inFlight -= 1;
          running.delete(request.name);
        }
      },
    });
    await runtime.start();
    await Promise.all(names.map((name) => client.create(configMap('parallel', name, { n: '0' }))));
    for (let round = 1; round <= 10; round += 1) {
      await Promise.all(names.map((name) => client.patch({ ...configMapKind, namespace: 'parallel', name }, { data: { n: String(round) } })));
    }
    // Level-based: every key is reconciled at least once after its last change.
    for (const name of names) {
      const latest = (await client.get({ ...configMapKind, namespace: 'parallel', name })).metadata?.resourceVersion;
      await eventually(() => lastSeenVersion.get(name) === latest, { message: `${name} reconciled at its last version` });
    }
    expect(overlaps).toBe(0);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    await runtime.stop();
  });

  it('a leader whose lease is taken stops at once: reconciles in flight see their signal abort, new changes wait', async () => {
    type Lease = CachedObject & { spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string } };
    const leaseReference = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'stolen', name: 'stolen-lease' };
    const reconciled: string[] = [];
    let heldSignal: AbortSignal | undefined;
    const runtime = manager({
      // Far longer than the test: only the lost lease can explain an early abort.
      gracefulShutdownTimeoutMs: 60_000,
      leaderElection: { namespace: 'stolen', name: 'stolen-lease', identity: 'victim', leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 100 },
    });
    runtime.add({
      name: 'stolen',
      for: configMapKind,
      maxConcurrentReconciles: 2,
      async reconcile(request, context) {
        if (request.namespace !== 'stolen') return;
        reconciled.push(request.name);
        if (request.name === 'held') {
          heldSignal = context.signal;
          await sleep(60_000, context.signal);
        }
      },
    });
    await runtime.start();
    await eventually(() => runtime.isLeader, { message: 'victim leads' });
    await client.create(configMap('stolen', 'held', {}));
    await eventually(() => heldSignal, { message: 'reconcile in flight' });

    // Another replica takes the lease over (for a minute, so the victim cannot win it back meanwhile).
    await updateObject<Lease>(client, leaseReference, (lease) => {
      lease.spec = { ...lease.spec, holderIdentity: 'usurper', leaseDurationSeconds: 60, renewTime: formatMicroTime(new Date()) };
    });
    await eventually(() => heldSignal!.aborted, { message: 'in-flight reconcile aborted', timeoutMs: 5_000 });
    await eventually(() => !runtime.isLeader, { message: 'victim stepped down' });
    expect(await runtime.metrics.registry.metrics()).toContain('leader_election_master_status{name="stolen-lease"} 0');

    await client.create(configMap('stolen', 'later', {}));
    await sleep(300);
    expect(reconciled).not.toContain('later');
    expect(runtime.cache.get(configMapKind, 'later', 'stolen')).toBeDefined(); // the cache stays warm
    await runtime.stop();
    const lease = await client.get<Lease>(leaseReference);
    expect(lease.spec.holderIdentity).toBe('usurper'); // a follower never releases someone else's lease
  });

  it('leader election: only the leader reconciles; a follower takes over on release or when the leader dies', async () => {
    const reconciledBy: string[] = [];
    const leaseOptions = { namespace: 'leader', name: 'toy-lease', leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 100 };
    const replica = (identity: string, releaseOnCancel = true) => {
      const created = manager({ leaderElection: { ...leaseOptions, identity, releaseOnCancel } });
      created.add(copier('leader', { onReconcile: () => reconciledBy.push(identity) }));
      return created;
    };
    const a = replica('a', false);
    const b = replica('b');
    await a.start();
    await eventually(() => a.isLeader, { message: 'a leads' });
    await b.start();
    await client.create(configMap('leader', 'one', { n: '1' }, { copy: 'yes' }));
    await eventually(() => copyData('leader', 'one'));
    await sleep(300);
    expect(b.isLeader).toBe(false);
    expect(new Set(reconciledBy)).toEqual(new Set(['a']));
    const lease = await client.get<CachedObject & { spec: { holderIdentity: string } }>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'leader',
      name: 'toy-lease',
    });
    expect(lease.spec.holderIdentity).toBe('a');

    // a dies without releasing (releaseOnCancel: false): b must wait out the lease, then take over.
    const diedAt = Date.now();
    await a.stop();
    await eventually(() => b.isLeader, { message: 'b takes over', timeoutMs: 8_000 });
    const takeover = Date.now() - diedAt;
    // Within the lease duration of the last renewal b saw, give or take a retry period and some load.
    expect(takeover).toBeGreaterThanOrEqual(1_500);
    expect(takeover).toBeLessThan(6_000);
    await client.create(configMap('leader', 'two', { n: '2' }, { copy: 'yes' }));
    await eventually(() => copyData('leader', 'two'));
    expect(reconciledBy).toContain('b');

    // A clean stop releases the lease: a third replica need not wait out the lease duration.
    const c = replica('c');
    await c.start();
    await sleep(200);
    expect(c.isLeader).toBe(false);
    const releasedAt = Date.now();
    await b.stop();
    await eventually(() => c.isLeader, { message: 'c takes over', timeoutMs: 5_000 });
    // Well before the 2 s lease would have expired.
    expect(Date.now() - releasedAt).toBeLessThan(1_500);
    await c.stop();
    const released = await client.get<CachedObject & { spec: { holderIdentity?: string } }>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'leader',
      name: 'toy-lease',
    });
    expect(released.spec.holderIdentity ?? '').toBe('');
  });
});

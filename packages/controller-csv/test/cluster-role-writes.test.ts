import type { CachedObject } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import {
  createNamespace,
  createOperatorGroup,
  crdManifest,
  csv,
  eventually,
  groupSynced,
  listAll,
  sleep,
  startController,
  startEnvironment,
  waitForPhase,
  type Environment,
  type RbacObject,
  type Server,
} from './helpers.js';
import { startKeyOrderProxy } from './key-order-proxy.js';

/**
 * OLM's writes against a server running kube's ClusterRole aggregation controller (issue 14): OLM owns the
 * labels and aggregationRule of its OperatorGroup ClusterRoles, the aggregation controller their rules, and
 * once everything converged nobody writes anything.
 */

/** Kinds whose writes do not count: Events and Leases are written on purpose while idle. */
const idleWriters = new Set(['/events', 'events.k8s.io/events', 'coordination.k8s.io/leases']);

interface Write {
  readonly what: string;
  readonly object: CachedObject;
}

/** Every write the server commits (all kinds but Events and Leases), and OperatorGroup ClusterRoles whose rules were emptied. */
function recordWrites(server: Server) {
  const writes: Write[] = [];
  const filled = new Set<string>();
  const emptied: string[] = [];
  const stop = server.cluster.store.subscribe((event) => {
    if (idleWriters.has(event.resource)) return;
    const name = event.object.metadata.name ?? '';
    writes.push({ what: `${event.type} ${event.resource} ${event.object.metadata.namespace ?? ''}/${name}`, object: event.object });
    if (event.resource !== 'rbac.authorization.k8s.io/clusterroles' || !name.startsWith('olm.og.') || event.type === 'DELETED') return;
    const rules = (event.object['rules'] as unknown[] | undefined) ?? [];
    if (rules.length > 0) filled.add(name);
    else if (filled.has(name)) emptied.push(`${name} at revision ${event.revision}`);
  });
  return {
    writes,
    emptied,
    stop,
    /** Waits until a second passes without writes (or 20 s went by), then returns what is written in the next `quietMs`. */
    async writesAfterConvergence(quietMs = 2_000): Promise<string[]> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const seen = writes.length;
        await sleep(1_000);
        if (writes.length === seen || Date.now() > deadline) break;
      }
      const from = writes.length;
      await sleep(quietMs);
      return writes.slice(from).map((write) => write.what);
    },
  };
}

type AggregatedRole = RbacObject & { aggregationRule?: { clusterRoleSelectors?: unknown[] } };

const groupRoles = (env: Environment, namespace: string, group: string) =>
  listAll<AggregatedRole>(env.client, Kinds.clusterRole, `olm.owner=${group},olm.owner.namespace=${namespace},olm.owner.kind=OperatorGroup`);

/** The resources the group's admin role was given by aggregation. */
async function adminResources(env: Environment, namespace: string, group = 'og'): Promise<string[]> {
  const admin = (await groupRoles(env, namespace, group)).find((role) => role.metadata?.name?.startsWith(`olm.og.${group}.admin-`));
  return ((admin?.rules ?? []) as Array<{ resources?: string[] }>).flatMap((rule) => rule.resources ?? []).sort();
}

/** A group whose two CSVs, installed one after the other, each provide an API; returns once the admin role aggregates both. */
async function installTwoProviders(env: Environment, namespace: string, prefix: string): Promise<void> {
  const { client } = env;
  await createNamespace(client, namespace);
  await createOperatorGroup(client, namespace, 'og');
  await groupSynced(client, namespace, 'og');
  const apis = ['first', 'second'].map((which) => ({ plural: `${prefix}${which}s`, group: `${which}.${prefix}.example.com`, kind: `${prefix[0]!.toUpperCase()}${prefix.slice(1)}${which}` }));
  for (const api of apis) await client.create(crdManifest(api.plural, api.group, api.kind));
  const expected: string[] = [];
  for (const [index, api] of apis.entries()) {
    const name = `${prefix}-${index}.v1`;
    await client.create(csv({ namespace, name, ownedCrds: [{ name: `${api.plural}.${api.group}`, version: 'v1', kind: api.kind }] }));
    await waitForPhase(client, namespace, name, 'Succeeded');
    expected.push(api.plural);
    await eventually(async () => expect(await adminResources(env, namespace)).toEqual(expect.arrayContaining(expected)), {
      message: `the admin role aggregates ${expected.join(', ')}`,
    });
  }
}

describe('OperatorGroup ClusterRoles with the aggregation controller', () => {
  let env: Environment;
  let controller: Awaited<ReturnType<typeof startController>>;
  beforeAll(async () => {
    env = await startEnvironment();
    controller = await startController(env);
  });
  afterAll(async () => {
    await controller?.stop();
    await env?.stop();
  });

  it('converge and then stay unwritten, their aggregated rules never emptied', async () => {
    const recorder = recordWrites(env.server);
    try {
      await installTwoProviders(env, 'quiet', 'quiet');
      expect(await recorder.writesAfterConvergence()).toEqual([]);
      expect(recorder.emptied).toEqual([]);
      expect(await adminResources(env, 'quiet')).toEqual(expect.arrayContaining(['quietfirsts', 'quietseconds']));
      for (const role of await groupRoles(env, 'quiet', 'og')) expect(role.rules?.length).toBeGreaterThan(0);
    } finally {
      recorder.stop();
    }
  });

  it('of three groups providing APIs see no write in the minute after convergence (periodic resyncs included)', async () => {
    const recorder = recordWrites(env.server);
    try {
      for (const name of ['minute-a', 'minute-b', 'minute-c']) await installTwoProviders(env, name, name.replace('-', ''));
      const writes = await recorder.writesAfterConvergence(60_000);
      expect(writes).toEqual([]);
      expect(recorder.emptied).toEqual([]);
    } finally {
      recorder.stop();
    }
  }, 120_000);

  it('are deleted with their group even when the aggregation controller recreates one (only rules, no labels)', async () => {
    const { client } = env;
    // A live group of the same name elsewhere, and roles of a look-alike name that OLM never generated.
    await createNamespace(client, 'race-live');
    await createOperatorGroup(client, 'race-live', 'og-race');
    const live = await eventually(async () => {
      const roles = await groupRoles(env, 'race-live', 'og-race');
      return roles.length === 3 ? roles : undefined;
    }, { message: 'the live group roles' });
    const lookAlikes = ['olm.og.og-race.admin', 'olm.og.og-race.admin-0aBc', 'olm.og.og-race.admins-x'];
    for (const name of lookAlikes) await client.create({ ...Kinds.clusterRole, metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });

    await createNamespace(client, 'race-gone');
    await createOperatorGroup(client, 'race-gone', 'og-race');
    await groupSynced(client, 'race-gone', 'og-race');
    await client.create(crdManifest('racers', 'race.example.com', 'Racer'));
    await client.create(csv({ namespace: 'race-gone', name: 'racer.v1', ownedCrds: [{ name: 'racers.race.example.com', version: 'v1', kind: 'Racer' }] }));
    await waitForPhase(client, 'race-gone', 'racer.v1', 'Succeeded');
    const doomed = await eventually(async () => {
      const roles = await groupRoles(env, 'race-gone', 'og-race');
      return roles.length === 3 && roles.every((role) => (role.rules ?? []).length > 0) ? roles.map((role) => role.metadata!.name!) : undefined;
    }, { message: 'the doomed group roles, aggregated' });

    await client.delete({ ...Kinds.operatorGroup, namespace: 'race-gone', name: 'og-race' });
    await client.delete({ ...Kinds.namespace, name: 'race-gone' });
    await eventually(async () => (await Promise.all(doomed.map((name) => client.find({ ...Kinds.clusterRole, name })))).every((role) => role === undefined), {
      message: 'OLM deletes the group roles',
    });
    // What kube's aggregation controller does when its informer still had the role: apply creates it anew.
    await client.apply(
      { ...Kinds.clusterRole, metadata: { name: doomed[0]! }, rules: [{ apiGroups: ['race.example.com'], resources: ['racers'], verbs: ['*'] }] },
      { fieldManager: 'clusterrole-aggregation-controller', force: true },
    );
    await eventually(async () => (await client.find({ ...Kinds.clusterRole, name: doomed[0]! })) === undefined, { message: 'the recreated role deleted' });
    await sleep(500);
    const left = (await client.list(Kinds.clusterRole)).items.map((role) => role.metadata?.name ?? '').filter((name) => name.startsWith('olm.og.og-race.'));
    expect(left.sort()).toEqual([...live.map((role) => role.metadata!.name!), ...lookAlikes].sort());
    for (const role of await groupRoles(env, 'race-live', 'og-race')) expect(role.metadata?.labels?.['olm.managed']).toBe('true');
  });
});

describe('OperatorGroup ClusterRoles through a server that returns keys in another order', () => {
  let env: Environment;
  let proxy: Awaited<ReturnType<typeof startKeyOrderProxy>>;
  let controller: Awaited<ReturnType<typeof startController>>;
  beforeAll(async () => {
    env = await startEnvironment();
    proxy = await startKeyOrderProxy(env.server.url);
    controller = await startController(env, {}, proxy.kubeconfig(env.server.kubeconfig));
  });
  afterAll(async () => {
    await controller?.stop();
    await proxy?.stop();
    await env?.stop();
  });

  it('converge and then stay unwritten, their aggregated rules never emptied', async () => {
    const recorder = recordWrites(env.server);
    try {
      await installTwoProviders(env, 'reordered', 'reordered');
      expect(await recorder.writesAfterConvergence()).toEqual([]);
      expect(recorder.emptied).toEqual([]);
      expect(await adminResources(env, 'reordered')).toEqual(expect.arrayContaining(['reorderedfirsts', 'reorderedseconds']));
    } finally {
      recorder.stop();
    }
  });
});

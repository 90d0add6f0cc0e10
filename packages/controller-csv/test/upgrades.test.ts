import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import {
  crdManifest,
  createNamespace,
  createOperatorGroup,
  csv,
  eventually,
  getCsv,
  groupSynced,
  sleep,
  useController,
  waitForPhase,
  type CsvObject,
} from './helpers.js';

const harness = useController();

const order: Record<string, number> = { '': 0, Pending: 1, InstallReady: 2, Installing: 3, Succeeded: 4, Replacing: 5, Deleting: 6 };

/**
 * TestUpdates' invariants for A ← B ← C, checked on every observation while the chain converges:
 * while A is not yet Replacing, B and C are at most Pending; B installing ⇒ A Replacing; B Succeeded ⇒
 * A Deleting or gone; C installing ⇒ B Replacing (A Deleting or gone); C Succeeded ⇒ A, B on the way out;
 * B is never deleted before A. Upstream's test syncs one CSV at a time and sees A, B gone the moment C
 * Succeeded; here the deletes are observed as they happen, so Deleting (and Replacing for B, which waits
 * for A to go) count as on the way out, and the run ends only once A and B are gone.
 */
function checkInvariants(a: CsvObject | undefined, b: CsvObject | undefined, c: CsvObject | undefined): string[] {
  const phase = (csvObject: CsvObject | undefined) => (csvObject ? csvObject.status?.phase ?? '' : 'gone');
  const problems: string[] = [];
  const [pa, pb, pc] = [phase(a), phase(b), phase(c)];
  if (['', 'Pending', 'InstallReady', 'Installing', 'Succeeded'].includes(pa)) {
    if ((order[pb] ?? 0) > 1 && pb !== 'gone') problems.push(`A ${pa} but B ${pb}`);
    if ((order[pc] ?? 0) > 1 && pc !== 'gone') problems.push(`A ${pa} but C ${pc}`);
  }
  if ((pb === 'InstallReady' || pb === 'Installing') && !['Replacing', 'Deleting', 'gone'].includes(pa)) problems.push(`B ${pb} but A ${pa}`);
  if (pb === 'Succeeded' && !['Replacing', 'Deleting', 'gone'].includes(pa)) problems.push(`B Succeeded but A ${pa}`);
  if ((pc === 'InstallReady' || pc === 'Installing') && !['Replacing', 'Deleting', 'gone'].includes(pb)) problems.push(`C ${pc} but B ${pb}`);
  if ((pc === 'InstallReady' || pc === 'Installing' || pc === 'Succeeded') && !['Deleting', 'gone'].includes(pa)) problems.push(`C ${pc} but A ${pa}`);
  if (pc === 'Succeeded' && !['Replacing', 'Deleting', 'gone'].includes(pb)) problems.push(`C Succeeded but B ${pb}`);
  // Only the oldest CSV of a chain is deleted: B stays Replacing while A still exists.
  if (pb === 'Deleting' && pa !== 'gone') problems.push(`B Deleting but A ${pa}`);
  return problems;
}

async function runChain(namespace: string, creationOrder: readonly ('a' | 'b' | 'c')[]) {
  const { client } = harness.env;
  await createNamespace(client, namespace);
  await client.create(crdManifest('apps', `${namespace}.example.com`, 'App'));
  const crd = { name: `apps.${namespace}.example.com`, version: 'v1', kind: 'App' };
  const manifests = {
    a: csv({ namespace, name: 'app.v1', ownedCrds: [crd], deployments: ['app-v1'], version: '1.0.0' }),
    b: csv({ namespace, name: 'app.v2', ownedCrds: [crd], deployments: ['app-v2'], replaces: 'app.v1', version: '2.0.0' }),
    c: csv({ namespace, name: 'app.v3', ownedCrds: [crd], deployments: ['app-v3'], replaces: 'app.v2', version: '3.0.0' }),
  };
  // As in upstream's TestUpdates the whole chain exists before any CSV can install: created in the
  // given order while the namespace has no OperatorGroup (they wait in Failed/NoOperatorGroup).
  for (const key of creationOrder) await client.create(manifests[key]);
  await createOperatorGroup(client, namespace, 'og');
  const problems: string[] = [];
  const seen = { a: new Set<string>(), b: new Set<string>(), c: new Set<string>() };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [a, b, c] = await Promise.all(['app.v1', 'app.v2', 'app.v3'].map((name) => getCsv(client, namespace, name)));
    problems.push(...checkInvariants(a, b, c));
    seen.a.add(a ? a.status?.phase ?? '' : 'gone');
    seen.b.add(b ? b.status?.phase ?? '' : 'gone');
    seen.c.add(c ? c.status?.phase ?? '' : 'gone');
    if (!a && !b && c?.status?.phase === 'Succeeded') break;
    if (Date.now() > deadline) throw new Error(`chain did not converge: A ${a?.status?.phase}, B ${b?.status?.phase}, C ${c?.status?.phase}`);
    await sleep(10);
  }
  expect(problems).toEqual([]);
  return seen;
}

describe('replacement chains (TestUpdates)', () => {
  it('A ← B ← C created in order A, B, C converges to C with the invariants held', async () => {
    const seen = await runChain('chain-abc', ['a', 'b', 'c']);
    expect(seen.c.has('Succeeded')).toBe(true);
    // A went through Replacing before it went away.
    expect(seen.a.has('Replacing') || seen.a.has('Deleting')).toBe(true);
  });

  it('A ← B ← C created in order C, B, A converges to C with the invariants held', async () => {
    await runChain('chain-cba', ['c', 'b', 'a']);
  });

  it('A ← B ← C created in order B, C, A converges to C with the invariants held', async () => {
    await runChain('chain-bca', ['b', 'c', 'a']);
  });

  it('A ← B ← C created in order A, C, B converges to C with the invariants held', async () => {
    await runChain('chain-acb', ['a', 'c', 'b']);
  });

  it('A ← B ← C created in order B, A, C converges to C with the invariants held', async () => {
    await runChain('chain-bac', ['b', 'a', 'c']);
  });

  it('A ← B ← C created in order C, A, B converges to C with the invariants held', async () => {
    await runChain('chain-cab', ['c', 'a', 'b']);
  });

  it('marks the old CSV Replacing/BeingReplaced, then Deleting/Replaced, and counts the upgrade', async () => {
    const { client } = harness.env;
    const namespace = 'upgrade-one';
    await createNamespace(client, namespace);
    await createOperatorGroup(client, namespace, 'og');
    await groupSynced(client, namespace, 'og');
    await client.create(csv({ namespace, name: 'db.v1', deployments: ['db-v1'] }));
    await waitForPhase(client, namespace, 'db.v1', 'Succeeded');
    const upgrades = async () => (await harness.controller.registry.getSingleMetric('csv_upgrade_count')!.get()).values[0]?.value ?? 0;
    const before = await upgrades();
    await client.create(csv({ namespace, name: 'db.v2', deployments: ['db-v2'], replaces: 'db.v1' }));
    const replacing = await waitForPhase(client, namespace, 'db.v1', 'Replacing', 'BeingReplaced');
    expect(replacing.status?.message).toBe('being replaced by csv: db.v2');
    // db.v1 is deleted once db.v2 Succeeded; its history shows Deleting/Replaced on the way.
    const history: string[] = [];
    await eventually(async () => {
      const current = await getCsv(client, namespace, 'db.v1');
      if (!current) return true;
      for (const condition of current.status?.conditions ?? []) history.push(`${condition.phase}/${condition.reason}/${condition.message}`);
      return false;
    }, { message: 'db.v1 deleted' });
    await waitForPhase(client, namespace, 'db.v2', 'Succeeded');
    if (history.some((entry) => entry.startsWith('Deleting'))) {
      expect(history).toContain('Deleting/Replaced/has been replaced by a newer ClusterServiceVersion that has successfully installed.');
    }
    expect((await upgrades()) - before).toBe(1);
    await eventually(async () => !(await client.find({ ...Kinds.deployment, namespace, name: 'db-v1' })), { message: 'old deployment collected' });
  });

  it('fails OwnerConflict when a CSV outside the chain owns the same CRD', async () => {
    const { client } = harness.env;
    const namespace = 'owners';
    await createNamespace(client, namespace);
    await createOperatorGroup(client, namespace, 'og');
    await groupSynced(client, namespace, 'og');
    await client.create(crdManifest('locks', 'example.com', 'Lock'));
    const owned = [{ name: 'locks.example.com', version: 'v1', kind: 'Lock' }];
    await client.create(csv({ namespace, name: 'first.v1', ownedCrds: owned, deployments: ['first'] }));
    await waitForPhase(client, namespace, 'first.v1', 'Succeeded');
    await client.create(csv({ namespace, name: 'second.v1', ownedCrds: owned, deployments: ['second'] }));
    const conflict = await waitForPhase(client, namespace, 'second.v1', 'Failed', 'OwnerConflict');
    expect(conflict.status?.message).toBe('conflicting CRD owner in namespace');
    expect(await client.find({ ...Kinds.deployment, namespace, name: 'second' })).toBeUndefined();
    // The conflicting owner goes away: the CSV installs.
    await client.delete({ ...Kinds.clusterServiceVersion, namespace, name: 'first.v1' });
    await waitForPhase(client, namespace, 'second.v1', 'Succeeded');
  });
});

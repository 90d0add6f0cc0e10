import type { KubeClient } from '@olm/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { writeCatalog, type BundleSpec, type EntrySpec, type PackageSpec } from './fbc-catalog.js';
import {
  approveInstallPlan,
  collectReplacedCsvs,
  condition,
  createOperatorNamespace,
  eventually,
  get,
  kubectl,
  kubectlBinary,
  list,
  sleep,
  startCluster,
  startController,
  subscription,
} from './helpers.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let controller: Awaited<ReturnType<typeof startController>>;
const directory = mkdtempSync(join(tmpdir(), 'olm-upgrades-'));

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  // Catalog content is refreshed when the CatalogSource changes, not by the TTL, in these tests.
  controller = await startController(cluster.server, client, { catalogCacheTtlMs: 60 * 60_000 });
});
afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
  rmSync(directory, { recursive: true, force: true });
});

/** A package whose bundles are named `<pkg>.v<version>`, with one channel of the given entries. */
function operatorPackage(name: string, channel: string, entries: readonly EntrySpec[], bundles: Partial<Record<string, Omit<BundleSpec, 'name' | 'version'>>> = {}): PackageSpec {
  return {
    name,
    defaultChannel: channel,
    channels: { [channel]: entries },
    bundles: entries.map((entry) => ({ name: entry.name, version: entry.name.slice(entry.name.indexOf('.v') + 2), ...bundles[entry.name] })),
  };
}

/** A namespace with an OperatorGroup and a `local` fbc-directory CatalogSource serving `packages`. */
async function namespaceWithCatalog(namespace: string, packages: readonly PackageSpec[], options: { operatorGroup?: boolean } = {}): Promise<void> {
  writeCatalog(join(directory, namespace), packages);
  if (options.operatorGroup === false) await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  else await createOperatorNamespace(client, namespace);
  await client.create({ ...Kinds.catalogSource, metadata: { name: 'local', namespace }, spec: { sourceType: 'fbc-directory', address: join(directory, namespace) } });
}

/** Republishes the namespace's catalog and tells OLM, as a user would, by annotating the CatalogSource. */
async function republish(namespace: string, packages: readonly PackageSpec[], revision: string): Promise<void> {
  writeCatalog(join(directory, namespace), packages);
  if (kubectlBinary) await kubectl(cluster.server, ['annotate', 'catalogsource', 'local', '-n', namespace, `example.com/revision=${revision}`, '--overwrite']);
  else await client.patch({ ...Kinds.catalogSource, namespace, name: 'local' }, { metadata: { annotations: { 'example.com/revision': revision } } });
}

const generationOf = (plan: AnyObject) => (plan.spec as { generation: number }).generation;
const phaseOf = (plan: AnyObject | undefined) => (plan?.status as { phase?: string } | undefined)?.phase;
const csvNamesOf = (plan: AnyObject) => [...(plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames].sort();

async function plansByGeneration(namespace: string): Promise<AnyObject[]> {
  return (await list(client, Kinds.installPlan, namespace)).sort((a, b) => generationOf(a) - generationOf(b));
}

async function installedCsv(namespace: string, name: string, csv: string): Promise<AnyObject> {
  return eventually(async () => {
    const found = await get(client, Kinds.subscription, namespace, name);
    const status = found?.status as { installedCSV?: string; state?: string } | undefined;
    return status?.installedCSV === csv && status.state === 'AtLatestKnown' && found;
  }, { timeoutMs: 30_000, message: `${namespace}/${name} at ${csv}` });
}

async function replacesOf(namespace: string, csv: string): Promise<string | undefined> {
  return ((await get(client, Kinds.clusterServiceVersion, namespace, csv))?.spec as { replaces?: string } | undefined)?.replaces;
}

describe('upgrades along the update graph, one hop per InstallPlan', () => {
  it("walks the spec's example path 0.1.1 → 0.1.2 → 0.1.3 through every version to the channel head", async () => {
    const namespace = 'example-path';
    await namespaceWithCatalog(namespace, [
      operatorPackage('example', 'alpha', [
        { name: 'example.v0.1.1' },
        { name: 'example.v0.1.2', replaces: 'example.v0.1.1' },
        { name: 'example.v0.1.3', replaces: 'example.v0.1.2' },
      ]),
    ]);
    const stop = collectReplacedCsvs(client, namespace);
    try {
      await client.create(subscription(namespace, 'example', { source: 'local', sourceNamespace: namespace, channel: 'alpha', startingCSV: 'example.v0.1.1' }));
      const sub = await installedCsv(namespace, 'example', 'example.v0.1.3');
      expect(sub.status).toMatchObject({ currentCSV: 'example.v0.1.3', installPlanGeneration: 3 });
    } finally {
      await stop();
    }
    const plans = await plansByGeneration(namespace);
    expect(plans.map(csvNamesOf)).toEqual([['example.v0.1.1'], ['example.v0.1.2'], ['example.v0.1.3']]);
    expect(plans.map(phaseOf)).toEqual(['Complete', 'Complete', 'Complete']);
    expect(await replacesOf(namespace, 'example.v0.1.3')).toBe('example.v0.1.2');
    // at the channel head: nothing more to do
    await sleep(500);
    expect(await list(client, Kinds.installPlan, namespace)).toHaveLength(3);

    // the plan it references is deleted: InstallPlanMissing, and no new plan
    await client.delete({ ...Kinds.installPlan, namespace, name: plans[2]!.metadata!.name! });
    const missing = await eventually(async () => {
      const found = await get(client, Kinds.subscription, namespace, 'example');
      return condition(found, 'InstallPlanMissing') && found;
    });
    expect(condition(missing, 'InstallPlanMissing')).toMatchObject({ status: 'True', reason: 'ReferencedInstallPlanNotFound' });
    expect(missing.status).toMatchObject({ state: 'AtLatestKnown', installedCSV: 'example.v0.1.3' });
    await sleep(300);
    expect(await list(client, Kinds.installPlan, namespace)).toHaveLength(2);
  });

  it('takes a skips edge after the catalog is republished, and never installs the skipped version on a fresh cluster', async () => {
    const old = operatorPackage('etcd', 'alpha', [{ name: 'etcdoperator.v0.9.0' }, { name: 'etcdoperator.v0.9.1', replaces: 'etcdoperator.v0.9.0' }]);
    // 0.9.2 replaces 0.9.0 and skips the bad 0.9.1 (the spec's etcd example)
    const fixed = operatorPackage('etcd', 'alpha', [
      { name: 'etcdoperator.v0.9.0' },
      { name: 'etcdoperator.v0.9.1', replaces: 'etcdoperator.v0.9.0' },
      { name: 'etcdoperator.v0.9.2', replaces: 'etcdoperator.v0.9.0', skips: ['etcdoperator.v0.9.1'] },
    ]);

    // a cluster that has seen the bad update
    await namespaceWithCatalog('skips-seen', [old]);
    const stopSeen = collectReplacedCsvs(client, 'skips-seen');
    try {
      await client.create(subscription('skips-seen', 'etcd', { source: 'local', sourceNamespace: 'skips-seen', channel: 'alpha', startingCSV: 'etcdoperator.v0.9.0' }));
      await installedCsv('skips-seen', 'etcd', 'etcdoperator.v0.9.1');
      await republish('skips-seen', [fixed], '2');
      await installedCsv('skips-seen', 'etcd', 'etcdoperator.v0.9.2');
    } finally {
      await stopSeen();
    }
    expect((await plansByGeneration('skips-seen')).map(csvNamesOf)).toEqual([['etcdoperator.v0.9.0'], ['etcdoperator.v0.9.1'], ['etcdoperator.v0.9.2']]);
    // the skips edge: 0.9.2 replaces what is installed
    expect(await replacesOf('skips-seen', 'etcdoperator.v0.9.2')).toBe('etcdoperator.v0.9.1');

    // a cluster that has not: 0.9.0 goes straight to 0.9.2
    await namespaceWithCatalog('skips-unseen', [fixed]);
    const stopUnseen = collectReplacedCsvs(client, 'skips-unseen');
    try {
      await client.create(subscription('skips-unseen', 'etcd', { source: 'local', sourceNamespace: 'skips-unseen', channel: 'alpha', startingCSV: 'etcdoperator.v0.9.0' }));
      await installedCsv('skips-unseen', 'etcd', 'etcdoperator.v0.9.2');
    } finally {
      await stopUnseen();
    }
    expect((await plansByGeneration('skips-unseen')).map(csvNamesOf)).toEqual([['etcdoperator.v0.9.0'], ['etcdoperator.v0.9.2']]);
    expect(await replacesOf('skips-unseen', 'etcdoperator.v0.9.2')).toBe('etcdoperator.v0.9.0');
  });

  it('prefers the channel head whose skipRange holds the installed version over the next replacement', async () => {
    const namespace = 'skip-range';
    await namespaceWithCatalog(namespace, [
      operatorPackage('elasticsearch-operator', 'stable', [
        { name: 'elasticsearch-operator.v4.1.0' },
        { name: 'elasticsearch-operator.v4.1.1', replaces: 'elasticsearch-operator.v4.1.0' },
        { name: 'elasticsearch-operator.v4.1.2', replaces: 'elasticsearch-operator.v4.1.1', skipRange: '>=4.1.0 <4.1.2' },
      ]),
    ]);
    const stop = collectReplacedCsvs(client, namespace);
    try {
      await client.create(
        subscription(namespace, 'elasticsearch-operator', { source: 'local', sourceNamespace: namespace, channel: 'stable', startingCSV: 'elasticsearch-operator.v4.1.0' }),
      );
      await installedCsv(namespace, 'elasticsearch-operator', 'elasticsearch-operator.v4.1.2');
    } finally {
      await stop();
    }
    expect((await plansByGeneration(namespace)).map(csvNamesOf)).toEqual([['elasticsearch-operator.v4.1.0'], ['elasticsearch-operator.v4.1.2']]);
    expect(await replacesOf(namespace, 'elasticsearch-operator.v4.1.2')).toBe('elasticsearch-operator.v4.1.0');
  });

  it('upgrades two operators that need each other together (no version deadlock), in Manual plans when any Subscription is Manual', async () => {
    const namespace = 'deadlock';
    const api = (kind: string) => ({ group: 'deadlock.example.com', version: 'v1', kind });
    // a.v1 and b.v1 need each other's API; so do a.v2 and b.v2, with new APIs: neither can move alone
    const a = operatorPackage('a', 'alpha', [{ name: 'a.v1.0.0' }, { name: 'a.v2.0.0', replaces: 'a.v1.0.0' }], {
      'a.v1.0.0': { provides: [api('One')], requires: [api('Two')] },
      'a.v2.0.0': { provides: [api('Three')], requires: [api('Four')] },
    });
    const b = operatorPackage('b', 'alpha', [{ name: 'b.v1.0.0' }, { name: 'b.v2.0.0', replaces: 'b.v1.0.0' }], {
      'b.v1.0.0': { provides: [api('Two')], requires: [api('One')] },
      'b.v2.0.0': { provides: [api('Four')], requires: [api('Three')] },
    });
    // The OperatorGroup comes last, so that the first resolution sees both Subscriptions.
    await namespaceWithCatalog(namespace, [a, b], { operatorGroup: false });
    await client.create(subscription(namespace, 'a', { source: 'local', sourceNamespace: namespace, channel: 'alpha', startingCSV: 'a.v1.0.0', installPlanApproval: 'Automatic' }));
    await client.create(subscription(namespace, 'b', { source: 'local', sourceNamespace: namespace, channel: 'alpha', startingCSV: 'b.v1.0.0', installPlanApproval: 'Manual' }));
    await client.create({ ...Kinds.operatorGroup, metadata: { name: namespace, namespace }, spec: { targetNamespaces: [namespace] } });

    const stop = collectReplacedCsvs(client, namespace);
    try {
      const approve = async (generation: number, csvs: string[]) => {
        const plan = await eventually(async () => (await plansByGeneration(namespace)).find((candidate) => generationOf(candidate) === generation && phaseOf(candidate) === 'RequiresApproval'), {
          timeoutMs: 20_000,
          message: `plan ${generation}`,
        });
        expect(csvNamesOf(plan)).toEqual(csvs);
        expect(plan.spec).toMatchObject({ approval: 'Manual', approved: false });
        expect((plan.metadata?.ownerReferences ?? []).map((owner) => `${owner.kind}/${owner.name}`).sort()).toEqual(['Subscription/a', 'Subscription/b']);
        // the Automatic Subscription waits on the same plan
        const automatic = await eventually(async () => {
          const found = await get(client, Kinds.subscription, namespace, 'a');
          return condition(found, 'InstallPlanPending') && found;
        });
        expect(condition(automatic, 'InstallPlanPending')).toMatchObject({ status: 'True', reason: 'RequiresApproval' });
        expect(automatic.status).toMatchObject({ state: 'UpgradePending', installPlanRef: { name: plan.metadata?.name } });
        await approveInstallPlan(cluster.server, client, namespace, plan.metadata!.name!);
        await eventually(async () => phaseOf(await get(client, Kinds.installPlan, namespace, plan.metadata!.name!)) === 'Complete', { message: `plan ${generation} complete` });
      };
      await approve(1, ['a.v1.0.0', 'b.v1.0.0']);
      await approve(2, ['a.v2.0.0', 'b.v2.0.0']);
      await installedCsv(namespace, 'a', 'a.v2.0.0');
      await installedCsv(namespace, 'b', 'b.v2.0.0');
    } finally {
      await stop();
    }
    expect(await replacesOf(namespace, 'a.v2.0.0')).toBe('a.v1.0.0');
    expect(await replacesOf(namespace, 'b.v2.0.0')).toBe('b.v1.0.0');
    expect(await list(client, Kinds.installPlan, namespace)).toHaveLength(2);
  });
});

describe('dependencies from several catalogs', () => {
  it('takes a dependency from the catalog with the higher priority and subscribes to it there', async () => {
    const namespace = 'priority';
    const gvk = { group: 'cache.example.com', version: 'v1', kind: 'Cache' };
    const cache = (version: string) => operatorPackage('cache', 'stable', [{ name: `cache.v${version}` }], { [`cache.v${version}`]: { provides: [gvk] } });
    await createOperatorNamespace(client, namespace);
    for (const [name, priority, packages] of [
      ['app', 0, [operatorPackage('app', 'stable', [{ name: 'app.v1.0.0' }], { 'app.v1.0.0': { requires: [gvk] } })]],
      ['low', 0, [cache('1.0.0')]],
      ['high', 10, [cache('2.0.0')]],
    ] as const) {
      writeCatalog(join(directory, namespace, name), packages);
      await client.create({ ...Kinds.catalogSource, metadata: { name, namespace }, spec: { sourceType: 'fbc-directory', address: join(directory, namespace, name), priority } });
    }
    await client.create(subscription(namespace, 'app', { source: 'app', sourceNamespace: namespace, channel: 'stable' }));
    const plan = await eventually(async () => {
      const [found] = await list(client, Kinds.installPlan, namespace);
      return phaseOf(found) === 'Complete' && found;
    }, { timeoutMs: 20_000 });
    expect(csvNamesOf(plan)).toEqual(['app.v1.0.0', 'cache.v2.0.0']);
    const dependency = await get(client, Kinds.subscription, namespace, 'cache-stable-high-priority');
    expect(dependency?.spec).toMatchObject({ name: 'cache', source: 'high', sourceNamespace: namespace, startingCSV: 'cache.v2.0.0', installPlanApproval: 'Automatic' });
  });
});

describe('deprecations from the catalog', () => {
  it('sets PackageDeprecated, ChannelDeprecated, BundleDeprecated and Deprecated for the installed bundle, and removes them when the catalog drops them', async () => {
    const namespace = 'deprecated';
    const legacy = (deprecations?: PackageSpec['deprecations']): PackageSpec => ({
      ...operatorPackage('legacy', 'stable', [{ name: 'legacy.v1.0.0' }]),
      ...(deprecations ? { deprecations } : {}),
    });
    await namespaceWithCatalog(namespace, [
      legacy([
        { schema: 'olm.package', message: 'legacy is no longer maintained; use modern' },
        { schema: 'olm.channel', name: 'stable', message: 'stable is frozen' },
        { schema: 'olm.bundle', name: 'legacy.v1.0.0', message: 'legacy.v1.0.0 leaks memory' },
      ]),
    ]);
    await client.create(subscription(namespace, 'legacy', { source: 'local', sourceNamespace: namespace, channel: 'stable' }));
    const deprecated = await eventually(async () => {
      const found = await get(client, Kinds.subscription, namespace, 'legacy');
      return condition(found, 'Deprecated') && found;
    }, { timeoutMs: 20_000 });
    expect((deprecated.status as { installedCSV?: string }).installedCSV).toBe('legacy.v1.0.0');
    const strip = (type: string) => {
      const found = condition(deprecated, type) as Record<string, unknown> | undefined;
      const { lastTransitionTime: _time, ...rest } = found ?? {};
      return rest;
    };
    expect(strip('PackageDeprecated')).toEqual({ type: 'PackageDeprecated', status: 'True', message: 'olm.package/legacy: legacy is no longer maintained; use modern' });
    expect(strip('ChannelDeprecated')).toEqual({ type: 'ChannelDeprecated', status: 'True', message: 'olm.channel/stable: stable is frozen' });
    expect(strip('BundleDeprecated')).toEqual({ type: 'BundleDeprecated', status: 'True', message: 'olm.bundle/legacy.v1.0.0: legacy.v1.0.0 leaks memory' });
    expect(strip('Deprecated')).toEqual({
      type: 'Deprecated',
      status: 'True',
      message: 'olm.package/legacy: legacy is no longer maintained; use modern; olm.channel/stable: stable is frozen; olm.bundle/legacy.v1.0.0: legacy.v1.0.0 leaks memory',
    });

    await republish(namespace, [legacy()], '2');
    const cleared = await eventually(async () => {
      const found = await get(client, Kinds.subscription, namespace, 'legacy');
      return !condition(found, 'Deprecated') && found;
    }, { timeoutMs: 20_000 });
    for (const type of ['PackageDeprecated', 'ChannelDeprecated', 'BundleDeprecated']) expect(condition(cleared, type)).toBeUndefined();
  });
});

describe('a version pin (the olm-ts.io/version-pin annotation)', () => {
  it('upgrades only inside the range, holds across a catalog update, says why in VersionPinned, and moves on when the pin goes', async () => {
    const namespace = 'version-pin';
    const base = [{ name: 'pinned.v1.0.0' }, { name: 'pinned.v1.1.0', replaces: 'pinned.v1.0.0' }, { name: 'pinned.v1.2.0', replaces: 'pinned.v1.1.0' }];
    await namespaceWithCatalog(namespace, [operatorPackage('pinned', 'stable', base)]);
    const pinned = subscription(namespace, 'pinned', { source: 'local', sourceNamespace: namespace, startingCSV: 'pinned.v1.0.0' });
    pinned.metadata = { ...pinned.metadata, annotations: { 'olm-ts.io/version-pin': '>=1.0.0 <1.2.0' } };
    // No CSV controller here: replaced CSVs are deleted as it would.
    const stop = collectReplacedCsvs(client, namespace);
    onTestFinished(stop);
    await client.create(pinned);
    await installedCsv(namespace, 'pinned', 'pinned.v1.1.0');
    const held = await eventually(async () => {
      const found = await get(client, Kinds.subscription, namespace, 'pinned');
      return condition(found, 'VersionPinned') && found;
    });
    expect(condition(held, 'VersionPinned')).toMatchObject({
      status: 'True',
      reason: 'NewerVersionOutsidePin',
      message: 'pinned.v1.2.0 (version 1.2.0) is available but outside the version pin ">=1.0.0 <1.2.0" (annotation olm-ts.io/version-pin); widen or remove the annotation to upgrade',
    });

    // A catalog update brings 1.3.0, which skips everything before it: still held, and the condition names it.
    await republish(namespace, [operatorPackage('pinned', 'stable', [...base, { name: 'pinned.v1.3.0', replaces: 'pinned.v1.2.0', skipRange: '<1.3.0' }])], '2');
    await eventually(async () => condition(await get(client, Kinds.subscription, namespace, 'pinned'), 'VersionPinned')?.message?.startsWith('pinned.v1.3.0'), { message: 'VersionPinned names 1.3.0' });
    await sleep(500);
    expect(((await get(client, Kinds.subscription, namespace, 'pinned'))?.status as { installedCSV?: string }).installedCSV).toBe('pinned.v1.1.0');
    expect((await list(client, Kinds.installPlan, namespace)).flatMap(csvNamesOf).sort()).toEqual(['pinned.v1.0.0', 'pinned.v1.1.0']);

    // The pin removed (as GitOps would, by editing the annotation): the upgrade proceeds and the condition goes.
    await client.patch({ ...Kinds.subscription, namespace, name: 'pinned' }, { metadata: { annotations: { 'olm-ts.io/version-pin': null } } });
    const moved = await installedCsv(namespace, 'pinned', 'pinned.v1.3.0');
    expect(condition(moved, 'VersionPinned')).toBeUndefined();
  });
});

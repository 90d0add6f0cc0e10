import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogRevisionAnnotation, catalogSourceName } from '../../src/local-olm.js';
import { temporaryDirectory, writeCatalog } from './catalogs.js';
import { e2eUnavailableReason, eventually, startOlmUp, type OlmUp } from './olm-up.js';

const unavailable = e2eUnavailableReason();
if (unavailable) console.warn(`end-to-end suite skipped: ${unavailable}`);

type Json = Record<string, any>;

async function getJson(up: OlmUp, args: string[]): Promise<Json | undefined> {
  const result = await up.kubectl(['get', ...args, '-o', 'json']);
  return result.code === 0 ? (JSON.parse(result.stdout) as Json) : undefined;
}

const operatorGroup = (namespace: string, targets: string[]) => `
apiVersion: v1
kind: Namespace
metadata: {name: ${namespace}}
---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata: {name: ${namespace}, namespace: ${namespace}}
spec:
  targetNamespaces: [${targets.join(', ')}]
`;

const subscription = (namespace: string, pkg: string, extra: Record<string, string> = {}) => `
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: ${pkg}, namespace: ${namespace}}
spec:
  name: ${pkg}
  source: ${extra.source ?? 'acme-examples'}
  sourceNamespace: olm
  channel: ${extra.channel ?? 'stable'}
${Object.entries(extra)
  .filter(([key]) => !['source', 'channel'].includes(key))
  .map(([key, value]) => `  ${key}: ${value}`)
  .join('\n')}
`;

async function catalogRevision(up: OlmUp, sourceName: string): Promise<string | undefined> {
  const source = await getJson(up, ['catalogsource', sourceName, '-n', 'olm']);
  return source?.metadata?.annotations?.[catalogRevisionAnnotation];
}

async function csvPhase(up: OlmUp, namespace: string, name: string): Promise<string | undefined> {
  return (await getJson(up, ['csv', name, '-n', namespace]))?.status?.phase as string | undefined;
}

async function waitForSucceeded(up: OlmUp, namespace: string, name: string, timeoutMs = 90_000): Promise<void> {
  await eventually(
    `${namespace}/${name} Succeeded`,
    async () => ((await csvPhase(up, namespace, name)) === 'Succeeded' ? true : undefined),
    timeoutMs,
  );
}

describe.skipIf(unavailable !== undefined)('end to end: kubectl against olm up', () => {
  let up: OlmUp;
  const catalogDirectory = temporaryDirectory('olm-e2e-published-');

  beforeAll(async () => {
    writeCatalog(catalogDirectory, {
      'acme-database': { defaultChannel: 'stable', channels: { stable: [{ name: 'acme-database.v1.0.0' }] } },
    });
    up = await startOlmUp({ catalogs: [catalogDirectory] });
  });
  afterAll(async () => {
    const code = await up?.stop();
    expect(code).toBe(0);
    rmSync(catalogDirectory, { recursive: true, force: true });
  });

  it('1. installs an operator and the dependency it needs, each with its own Subscription', async () => {
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('acme', ['acme']) + '---' + subscription('acme', 'acme-backup'));
    await waitForSucceeded(up, 'acme', 'acme-backup.v0.2.0');
    await waitForSucceeded(up, 'acme', 'acme-database.v1.2.0');
    const deployments = await getJson(up, ['deployments', '-n', 'acme']);
    expect(deployments!.items.map((item: Json) => item.metadata.name).sort()).toEqual(['acme-backup-operator', 'acme-database-operator']);
    const dependency = await getJson(up, ['subscription', 'acme-database-stable-acme-examples-olm', '-n', 'acme']);
    expect(dependency!.spec).toMatchObject({ name: 'acme-database', channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm' });
    expect(dependency!.status.installedCSV).toBe('acme-database.v1.2.0');
  });

  it('2. waits for approval with Manual, installs once approved, and stays pinned', async () => {
    await up.kubectlOk(
      ['apply', '-f', '-'],
      operatorGroup('manual', ['manual']) +
        '---' +
        subscription('manual', 'acme-database', { startingCSV: 'acme-database.v1.0.0', installPlanApproval: 'Manual' }),
    );
    const plan = await eventually('an InstallPlan waiting for approval', async () => {
      const plans = await getJson(up, ['installplans', '-n', 'manual']);
      return (plans?.items as Json[] | undefined)?.find((item) => item.status?.phase === 'RequiresApproval');
    });
    expect(plan.spec.clusterServiceVersionNames).toEqual(['acme-database.v1.0.0']);
    expect(await csvPhase(up, 'manual', 'acme-database.v1.0.0')).toBeUndefined();
    await up.kubectlOk(['patch', 'installplan', plan.metadata.name, '-n', 'manual', '--type', 'merge', '-p', '{"spec":{"approved":true}}']);
    await waitForSucceeded(up, 'manual', 'acme-database.v1.0.0');
    const next = await eventually('the next upgrade waiting for approval', async () => {
      const plans = await getJson(up, ['installplans', '-n', 'manual']);
      return (plans?.items as Json[] | undefined)?.find(
        (item) => item.metadata.name !== plan.metadata.name && item.status?.phase === 'RequiresApproval',
      );
    });
    expect(next.spec.clusterServiceVersionNames).toEqual(['acme-database.v1.1.0']);
    expect(await csvPhase(up, 'manual', 'acme-database.v1.0.0')).toBe('Succeeded');
  });

  it('3. upgrades one hop at a time along replaces, and jumps with skipRange, when a newer catalog is published', async () => {
    // The published catalog is served as a CatalogSource named after its directory.
    const sourceName = catalogSourceName(catalogDirectory);
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('upgrade', ['upgrade']) + '---' + subscription('upgrade', 'acme-database', { source: sourceName }));
    await waitForSucceeded(up, 'upgrade', 'acme-database.v1.0.0');

    const seen = new Set<string>();
    writeCatalog(catalogDirectory, {
      'acme-database': {
        defaultChannel: 'stable',
        channels: {
          stable: [
            { name: 'acme-database.v1.0.0' },
            { name: 'acme-database.v1.1.0', replaces: 'acme-database.v1.0.0' },
            { name: 'acme-database.v1.2.0', replaces: 'acme-database.v1.1.0' },
          ],
        },
      },
    });
    await eventually(
      'the walk 1.0.0 → 1.1.0 → 1.2.0',
      async () => {
        const plans = (await getJson(up, ['installplans', '-n', 'upgrade']))?.items as Json[] | undefined;
        for (const item of plans ?? []) for (const name of item.spec.clusterServiceVersionNames) seen.add(name);
        return (await csvPhase(up, 'upgrade', 'acme-database.v1.2.0')) === 'Succeeded' ? true : undefined;
      },
      120_000,
    );
    expect([...seen].sort()).toEqual(['acme-database.v1.0.0', 'acme-database.v1.1.0', 'acme-database.v1.2.0']);
    expect(await csvPhase(up, 'upgrade', 'acme-database.v1.0.0')).toBeUndefined();

    const revisionBefore = await catalogRevision(up, sourceName);
    writeCatalog(catalogDirectory, {
      'acme-database': {
        defaultChannel: 'stable',
        channels: {
          stable: [
            { name: 'acme-database.v1.0.0' },
            { name: 'acme-database.v1.1.0', replaces: 'acme-database.v1.0.0' },
            { name: 'acme-database.v1.2.0', replaces: 'acme-database.v1.1.0' },
            { name: 'acme-database.v2.0.0', replaces: 'acme-database.v1.2.0', skipRange: '>=1.0.0 <2.0.0' },
          ],
        },
      },
    });
    // Subscribe once v2.0.0 is published, or the first hop may come from the older catalog.
    await eventually('the republished catalog', async () => ((await catalogRevision(up, sourceName)) !== revisionBefore ? true : undefined), 30_000);
    await up.kubectlOk(
      ['apply', '-f', '-'],
      operatorGroup('jump', ['jump']) +
        '---' +
        subscription('jump', 'acme-database', { source: sourceName, startingCSV: 'acme-database.v1.0.0' }),
    );
    await waitForSucceeded(up, 'jump', 'acme-database.v2.0.0', 120_000);
    const jumpPlans = ((await getJson(up, ['installplans', '-n', 'jump']))!.items as Json[]).flatMap((item) => item.spec.clusterServiceVersionNames);
    expect(jumpPlans.sort()).toEqual(['acme-database.v1.0.0', 'acme-database.v2.0.0']);
  });

  it('4. explains an unsatisfiable subscription and installs nothing', async () => {
    // The subscription asks for a starting CSV the catalog does not have.
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('unsat', ['unsat']) + '---' + subscription('unsat', 'acme-monitoring', { channel: 'stable' }) + `  startingCSV: acme-monitoring.v0.9.9\n`);
    const condition = await eventually('ResolutionFailed', async () => {
      const sub = await getJson(up, ['subscription', 'acme-monitoring', '-n', 'unsat']);
      return (sub?.status?.conditions as Json[] | undefined)?.find((item) => item.type === 'ResolutionFailed' && item.status === 'True');
    });
    expect(condition.reason).toBe('ConstraintsNotSatisfiable');
    expect(condition.message).toMatch(/^constraints not satisfiable: /);
    expect(condition.message).toContain('acme-monitoring.v0.9.9');
    expect((await getJson(up, ['installplans', '-n', 'unsat']))!.items).toEqual([]);
    expect((await getJson(up, ['csv', '-n', 'unsat']))!.items).toEqual([]);
  });

  it('5. fails a CSV whose OperatorGroup intersects another providing the same API, and recovers when narrowed', async () => {
    await up.kubectlOk(['apply', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata: {name: shared}\n');
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('alpha', ['shared']) + '---' + subscription('alpha', 'acme-database'));
    await waitForSucceeded(up, 'alpha', 'acme-database.v1.2.0');
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('beta', ['shared']) + '---' + subscription('beta', 'acme-database'));
    const failed = await eventually('InterOperatorGroupOwnerConflict', async () => {
      const csv = await getJson(up, ['csv', 'acme-database.v1.2.0', '-n', 'beta']);
      return csv?.status?.reason === 'InterOperatorGroupOwnerConflict' ? csv : undefined;
    });
    expect(failed.status.phase).toBe('Failed');
    expect(failed.status.message).toBe('intersecting operatorgroups provide the same apis');
    await up.kubectlOk(['patch', 'operatorgroup', 'beta', '-n', 'beta', '--type', 'merge', '-p', '{"spec":{"targetNamespaces":["beta"]}}']);
    await waitForSucceeded(up, 'beta', 'acme-database.v1.2.0');
  });

  it('7. exposes upstream metrics on /metrics', async () => {
    const text = await (await fetch(`${up.metricsUrl}/metrics`)).text();
    expect(text).toMatch(/^csv_succeeded\{[^}]*name="acme-backup\.v0\.2\.0"[^}]*\} 1$/m);
    for (const name of ['csv_count', 'csv_upgrade_count', 'catalog_source_count', 'subscription_count', 'install_plan_count']) {
      expect(text).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? \\d+`, 'm'));
    }
  });
});

describe.skipIf(unavailable !== undefined)('end to end: restarting olm up', () => {
  it('6. finishes an installation interrupted by a restart, with nothing duplicated', async () => {
    const dataDir = temporaryDirectory('olm-e2e-restart-');
    let up = await startOlmUp({ dataDir });
    try {
      await up.kubectlOk(['apply', '-f', '-'], operatorGroup('restart', ['restart']) + '---' + subscription('restart', 'acme-backup'));
      await eventually('an InstallPlan', async () => ((await getJson(up, ['installplans', '-n', 'restart']))?.items.length ? true : undefined));
      expect(await up.stop()).toBe(0);
      up = await startOlmUp({ dataDir });
      await waitForSucceeded(up, 'restart', 'acme-backup.v0.2.0');
      await waitForSucceeded(up, 'restart', 'acme-database.v1.2.0');
      const subscriptions = (await getJson(up, ['subscriptions', '-n', 'restart']))!.items.map((item: Json) => item.metadata.name).sort();
      expect(subscriptions).toEqual(['acme-backup', 'acme-database-stable-acme-examples-olm']);
      const csvs = (await getJson(up, ['csv', '-n', 'restart']))!.items.map((item: Json) => item.metadata.name).sort();
      expect(csvs).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);
    } finally {
      await up.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

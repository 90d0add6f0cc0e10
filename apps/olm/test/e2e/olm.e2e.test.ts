import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSourceName } from '../../src/local-olm.js';
import { temporaryDirectory, writeCatalog } from './catalogs.js';
import { catalogRevision, csvPhase, getJson, operatorGroup, subscription, waitForSucceeded, type Json } from './kubectl-objects.js';
import { e2eUnavailableReason, eventually, serveCatalog, startOlmUp, writesDuring, type OlmUp } from './olm-up.js';

const unavailable = e2eUnavailableReason();
if (unavailable) console.warn(`end-to-end suite skipped: ${unavailable}`);

/** The CSVs of each InstallPlan in a namespace, one list per plan. */
async function installPlanCsvs(up: OlmUp, namespace: string): Promise<string[][]> {
  const plans = ((await getJson(up, ['installplans', '-n', namespace]))?.items ?? []) as Json[];
  return plans.map((plan) => [...(plan.spec.clusterServiceVersionNames as string[])].sort());
}

/** Names of the objects of each kind in a namespace, for comparing two installations. */
async function inventory(up: OlmUp, namespace: string): Promise<Record<string, string[]>> {
  const kinds = ['subscriptions', 'installplans', 'csv', 'deployments', 'serviceaccounts', 'roles', 'rolebindings'];
  const result: Record<string, string[]> = {};
  for (const kind of kinds) {
    const items = ((await getJson(up, [kind, '-n', namespace]))?.items ?? []) as Json[];
    result[kind] = items
      .map((item) => (kind === 'installplans' ? `plan for ${[...item.spec.clusterServiceVersionNames].sort().join('+')}` : item.metadata.name))
      .filter((name: string) => kind !== 'serviceaccounts' || name !== 'default')
      .sort();
  }
  return result;
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

  it('0. lists the catalogs\' operators as PackageManifests, in any namespace, and a CatalogSource added later too', async () => {
    await up.kubectlOk(['apply', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata: {name: packages}\n');
    const table = await up.kubectl(['get', 'packagemanifests', '-n', 'packages', '-l', 'catalog=acme-examples']);
    expect(table.stderr).toBe('');
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+CATALOG\s+AGE$/);
    // The Catalog column is the CatalogSource's display name (`olm up` names the served directory).
    for (const [index, name] of ['acme-backup', 'acme-database', 'acme-monitoring'].entries()) {
      expect(lines[index + 1]).toMatch(new RegExp(`^${name}\\s+acme-examples \\(\\S+/examples/catalog\\)\\s+\\d+[smhd]`));
    }
    expect(lines).toHaveLength(4);
    // The published catalog of `--catalog` is listed as well, under its own name.
    const all = await up.kubectlOk(['get', 'packagemanifests', '-n', 'packages', '-o', 'jsonpath={range .items[*]}{.status.catalogSource}/{.metadata.name}{"\\n"}{end}']);
    expect(all.trim().split('\n').sort()).toEqual(
      ['acme-examples/acme-backup', 'acme-examples/acme-database', 'acme-examples/acme-monitoring', `${catalogSourceName(catalogDirectory)}/acme-database`].sort(),
    );

    const jsonpath = (path: string, args: string[] = []) => up.kubectlOk(['get', 'packagemanifest', 'acme-database', '-n', 'packages', ...args, '-o', `jsonpath=${path}`]);
    expect(await jsonpath('{.status.catalogSource}')).toBe('acme-examples');
    expect(await jsonpath('{.status.defaultChannel}')).toBe('stable');
    expect(await jsonpath('{.status.channels[?(@.name=="stable")].currentCSV}')).toBe('acme-database.v1.2.0');
    expect(await jsonpath('{.status.channels[?(@.name=="fast")].currentCSV}')).toBe('acme-database.v2.0.0');
    const described = await up.kubectl(['describe', 'packagemanifest', 'acme-database', '-n', 'packages']);
    expect(described.stderr).toBe('');
    expect(described.stdout).toMatch(/^Name:\s+acme-database$/m);
    expect(described.stdout).toMatch(/Default Channel:\s+stable/);

    // A namespace's own catalog, added while OLM runs: its packages show there, and only there.
    const teamDirectory = temporaryDirectory('olm-e2e-team-catalog-');
    writeCatalog(teamDirectory, { 'acme-database': { defaultChannel: 'candidate', channels: { candidate: [{ name: 'acme-database.v1.1.0' }] } } });
    const registry = await serveCatalog(teamDirectory);
    try {
      await up.kubectlOk(
        ['apply', '-f', '-'],
        `apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {name: team-catalog, namespace: packages}\nspec: {sourceType: grpc, address: "${registry.address}", displayName: Team catalog}\n`,
      );
      const team = ['get', 'packagemanifests', '-n', 'packages', '-l', 'catalog=team-catalog'];
      const listed = await eventually('the team catalog\'s packages', async () => {
        const result = await up.kubectl(team);
        return /^acme-database\s+Team catalog\s/m.test(result.stdout) ? result : undefined;
      }, 30_000);
      expect(listed.stderr).toBe('');
      expect(await up.kubectlOk([...team, '-o', 'jsonpath={.items[0].status.defaultChannel} {.items[0].status.channels[0].currentCSV} {.items[0].metadata.namespace}'])).toBe(
        'candidate acme-database.v1.1.0 packages',
      );
      expect((await up.kubectl(['get', 'packagemanifests', '-n', 'default', '-l', 'catalog=team-catalog'])).stderr).toBe('No resources found in default namespace.\n');
      await up.kubectlOk(['delete', 'catalogsource', 'team-catalog', '-n', 'packages']);
      await eventually('the team catalog\'s packages gone', async () => ((await up.kubectl(team)).stderr === 'No resources found in packages namespace.\n' ? true : undefined), 30_000);
    } finally {
      await registry.stop();
      rmSync(teamDirectory, { recursive: true, force: true });
    }
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
    // ... by controllers holding only deploy/10-rbac.yaml's rights, as a deployed OLM
    expect(up.output()).toContain('as ServiceAccount olm/olm-operator with the rights of deploy/10-rbac.yaml');
    expect((await up.kubectl(['auth', 'can-i', 'create', 'clusterroles', '--as', 'system:serviceaccount:olm:olm-operator'])).stdout.trim()).toBe('yes');
    expect((await up.kubectl(['auth', 'can-i', 'create', 'persistentvolumes', '--as', 'system:serviceaccount:olm:olm-operator'])).stdout.trim()).toBe('no');
  });

  it('1b. has nothing left to write once the operators are installed (no drift from server defaults or key order)', async () => {
    // The server defaults and reorders what OLM applies, as kube-apiserver does; none of it is drift.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const writes = writesDuring(up, 5_000);
    // A write of our own, to show that the watches see writes at all.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await up.kubectlOk(['create', 'configmap', 'quiescence-probe', '-n', 'acme']);
    expect(await writes).toEqual([expect.stringMatching(/^ADDED \/api\/v1\/configmaps acme\/quiescence-probe /)]);
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
        for (const plan of await installPlanCsvs(up, 'upgrade')) seen.add(JSON.stringify(plan));
        return (await csvPhase(up, 'upgrade', 'acme-database.v1.2.0')) === 'Succeeded' ? true : undefined;
      },
      120_000,
    );
    // One InstallPlan per hop, each with one CSV: 1.1.0 was installed on the way, not jumped over.
    expect([...seen].sort()).toEqual([['acme-database.v1.0.0'], ['acme-database.v1.1.0'], ['acme-database.v1.2.0']].map((plan) => JSON.stringify(plan)));
    const head = await getJson(up, ['csv', 'acme-database.v1.2.0', '-n', 'upgrade']);
    expect(head!.spec.replaces).toBe('acme-database.v1.1.0');
    await eventually('the replaced CSVs removed', async () => ((await getJson(up, ['csv', '-n', 'upgrade']))!.items.length === 1 ? true : undefined));

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
    // 2.0.0's skipRange covers 1.0.0: one hop from 1.0.0 to the head, past 1.1.0 and 1.2.0.
    expect((await installPlanCsvs(up, 'jump')).map((plan) => JSON.stringify(plan)).sort()).toEqual(
      [['acme-database.v1.0.0'], ['acme-database.v2.0.0']].map((plan) => JSON.stringify(plan)),
    );
    await eventually('1.0.0 replaced by 2.0.0', async () => ((await csvPhase(up, 'jump', 'acme-database.v1.0.0')) === undefined ? true : undefined));
    expect((await getJson(up, ['csv', '-n', 'jump']))!.items.map((item: Json) => item.metadata.name)).toEqual(['acme-database.v2.0.0']);
  });

  it('4. explains an unsatisfiable subscription and installs nothing', async () => {
    // acme-database 2.0.0 is installed (channel fast); acme-monitoring needs acme-database >=1.1.0 <2.0.0,
    // and nothing upgrades 2.0.0 to such a version: no way to install monitoring without breaking the database.
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('unsat', ['unsat']) + '---' + subscription('unsat', 'acme-database', { channel: 'fast' }));
    await waitForSucceeded(up, 'unsat', 'acme-database.v2.0.0');
    const before = await inventory(up, 'unsat');
    const crdsBefore = (await getJson(up, ['crd']))!.items.map((item: Json) => item.metadata.name);
    await up.kubectlOk(['apply', '-f', '-'], subscription('unsat', 'acme-monitoring'));
    const condition = await eventually('ResolutionFailed', async () => {
      const sub = await getJson(up, ['subscription', 'acme-monitoring', '-n', 'unsat']);
      return (sub?.status?.conditions as Json[] | undefined)?.find((item) => item.type === 'ResolutionFailed' && item.status === 'True');
    });
    expect(condition.reason).toBe('ConstraintsNotSatisfiable');
    expect(condition.message).toMatch(/^constraints not satisfiable: /);
    expect(condition.message).toContain('bundle acme-monitoring.v0.1.0 requires an operator with package: acme-database and with version in range: >=1.1.0 <2.0.0');
    expect(condition.message).toContain('subscription acme-database requires @existing/unsat//acme-database.v2.0.0');
    // Nothing half-installed: no plan, CSV, Deployment, RBAC, dependency Subscription or CRD for monitoring;
    // the database is as it was.
    const after = await inventory(up, 'unsat');
    expect({ ...after, subscriptions: after.subscriptions!.filter((name) => name !== 'acme-monitoring') }).toEqual(before);
    expect((await getJson(up, ['crd']))!.items.map((item: Json) => item.metadata.name)).toEqual(crdsBefore);
    expect(crdsBefore).not.toContain('monitors.acme.example.com');
    expect(await csvPhase(up, 'unsat', 'acme-database.v2.0.0')).toBe('Succeeded');

    // A Subscription whose starting CSV is not in the catalog fails the same way, naming it.
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('unknown', ['unknown']) + '---' + subscription('unknown', 'acme-monitoring', { startingCSV: 'acme-monitoring.v0.9.9' }));
    const unknown = await eventually('ResolutionFailed', async () => {
      const sub = await getJson(up, ['subscription', 'acme-monitoring', '-n', 'unknown']);
      return (sub?.status?.conditions as Json[] | undefined)?.find((item) => item.type === 'ResolutionFailed' && item.status === 'True');
    });
    expect(unknown.reason).toBe('ConstraintsNotSatisfiable');
    expect(unknown.message).toContain('acme-monitoring.v0.9.9');
    expect((await getJson(up, ['installplans', '-n', 'unknown']))!.items).toEqual([]);
    expect((await getJson(up, ['csv', '-n', 'unknown']))!.items).toEqual([]);
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
    const succeeded = text.split('\n').filter((line) => line.startsWith('csv_succeeded{') && line.includes('name="acme-backup.v0.2.0"'));
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]).toContain('namespace="acme"');
    expect(succeeded[0]).toContain('version="0.2.0"');
    expect(succeeded[0]).toMatch(/\} 1$/);
    const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(value('csv_count')).toBeGreaterThanOrEqual(2);
    expect(value('catalog_source_count')).toBeGreaterThanOrEqual(2);
    expect(value('subscription_count')).toBeGreaterThanOrEqual(2);
    expect(value('install_plan_count')).toBeGreaterThanOrEqual(2);
    // Test 3 upgraded acme-database twice in `upgrade` and once in `jump`.
    expect(value('csv_upgrade_count')).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/^catalogsource_ready\{[^}]*name="acme-examples"[^}]*\} 1$/m);
    expect(text).toMatch(/^subscription_sync_total\{[^}]*name="acme-backup"[^}]*\} \d+$/m);
  });

  it('olm install and olm status, as a user runs them against olm up', async () => {
    // Two catalogs offer acme-database here: install asks which one.
    const ambiguous = await up.olm(['install', 'acme-database', '-n', 'cli']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^error: several CatalogSources could provide it \(olm\/\S+, olm\/\S+\): pass --source NAME$/m);
    const installed = await up.olm(['install', 'acme-backup', '-n', 'cli', '--source', 'acme-examples']);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('operatorgroup cli/cli created (watching namespace cli)');
    // The package's default channel, read from its PackageManifest, is written into the Subscription.
    expect(installed.stdout).toContain('subscription cli/acme-backup created (catalog olm/acme-examples, channel stable)');
    expect(installed.stderr).toContain('resolving dependencies');
    expect(installed.stderr.trimEnd().split('\n').at(-1)).toBe('acme-backup.v0.2.0 installed in cli: Succeeded');
    const status = await up.olm(['status', '-n', 'cli']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^cli\s+acme-backup\s+acme-backup\s+stable\s+AtLatestKnown\s+acme-backup\.v0\.2\.0\s+Succeeded\s+InstallSucceeded$/m);
    expect(status.stdout).toMatch(/^cli\s+acme-database-stable-acme-examples-olm\s+acme-database\s+stable\s+AtLatestKnown\s+acme-database\.v1\.2\.0\s+Succeeded\s+InstallSucceeded$/m);

    // Manual approval: install says how to approve; status repeats it; the printed command works.
    const waiting = await up.olm(['install', 'acme-database', '-n', 'cli-manual', '--source', 'acme-examples', '--approval', 'Manual', '--starting-csv', 'acme-database.v1.0.0', '--timeout', '5000']);
    expect(waiting.code).toBe(1);
    expect(waiting.stderr).toMatch(/install plan \S+ waits for approval: kubectl patch installplan \S+ -n cli-manual --type merge -p '\{"spec":\{"approved":true\}\}'/);
    expect(waiting.stderr).toContain('timed out after 5000 ms; see: olm status -n cli-manual');
    const pending = await up.olm(['status', '-n', 'cli-manual']);
    const approve = /^ {2}kubectl (patch installplan \S+ -n cli-manual --type merge -p) '(.+)'$/m.exec(pending.stdout);
    expect(approve, pending.stdout).not.toBeNull();
    await up.kubectlOk([...approve![1]!.split(' '), approve![2]!]);
    await waitForSucceeded(up, 'cli-manual', 'acme-database.v1.0.0');

    // A failure ends with its reason and exit 1.
    expect((await up.olm(['install', 'acme-database', '-n', 'cli-unsat', '--source', 'acme-examples', '-c', 'fast'])).code).toBe(0);
    const failed = await up.olm(['install', 'acme-monitoring', '-n', 'cli-unsat', '--source', 'acme-examples']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('resolution failed (ConstraintsNotSatisfiable): constraints not satisfiable:');
    expect(failed.stderr).toContain('>=1.1.0 <2.0.0');
    const again = await up.olm(['install', 'acme-monitoring', '-n', 'cli-unsat', '--source', 'acme-examples']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('error: subscription cli-unsat/acme-monitoring already exists; see its progress with: olm status -n cli-unsat');
  }, 120_000);
});

describe.skipIf(unavailable !== undefined)('end to end: restarting olm up', () => {
  it('6. finishes an installation interrupted by a restart, with nothing duplicated or lost', async () => {
    const dataDir = temporaryDirectory('olm-e2e-restart-');
    // Deployments take 5 s to become available, so the stop lands while the CSVs are installing.
    let up = await startOlmUp({ dataDir, extraArgs: ['--rollout-delay', '5000'] });
    try {
      await up.kubectlOk(['apply', '-f', '-'], operatorGroup('restart', ['restart']) + '---' + subscription('restart', 'acme-backup'));
      const phases = await eventually('a CSV installing', async () => {
        const csvs = ((await getJson(up, ['csv', '-n', 'restart']))?.items ?? []) as Json[];
        const current = csvs.map((csv) => csv.status?.phase as string | undefined);
        return current.includes('Installing') ? current : undefined;
      });
      expect(phases).not.toContain('Succeeded');
      expect(await up.stop()).toBe(0);

      up = await startOlmUp({ dataDir });
      // The packageserver registered itself anew (another port, another certificate): kubectl's
      // discovery (a fresh cache) finds every group, the packages one included, without a warning.
      const discovery = await up.kubectl(['api-resources', '--api-group', 'packages.operators.coreos.com']);
      expect(discovery.stderr).toBe('');
      expect(discovery.stdout).toMatch(/^packagemanifests\s+packages\.operators\.coreos\.com\/v1\s+true\s+PackageManifest$/m);
      const packages = await up.kubectl(['get', 'packagemanifests', '-n', 'restart']);
      expect(packages.stderr).toBe('');
      expect(packages.stdout).toMatch(/^acme-backup\s/m);
      await waitForSucceeded(up, 'restart', 'acme-backup.v0.2.0');
      await waitForSucceeded(up, 'restart', 'acme-database.v1.2.0');
      // The same installation done without a restart, for comparison.
      await up.kubectlOk(['apply', '-f', '-'], operatorGroup('fresh', ['fresh']) + '---' + subscription('fresh', 'acme-backup'));
      await waitForSucceeded(up, 'fresh', 'acme-backup.v0.2.0');
      await waitForSucceeded(up, 'fresh', 'acme-database.v1.2.0');
      await new Promise((resolve) => setTimeout(resolve, 2000)); // anything a restart would duplicate has had time to appear

      const restarted = await inventory(up, 'restart');
      expect(restarted.subscriptions).toEqual(['acme-backup', 'acme-database-stable-acme-examples-olm']);
      expect(restarted.csv).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);
      expect(restarted.installplans).toEqual(['plan for acme-backup.v0.2.0+acme-database.v1.2.0']);
      expect(restarted.deployments).toEqual(['acme-backup-operator', 'acme-database-operator']);
      const fresh = await inventory(up, 'fresh');
      // Generated RBAC names differ per namespace; their number must not.
      expect({ ...restarted, roles: restarted.roles!.length, rolebindings: restarted.rolebindings!.length }).toEqual({
        ...fresh,
        roles: fresh.roles!.length,
        rolebindings: fresh.rolebindings!.length,
      });
    } finally {
      await up.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

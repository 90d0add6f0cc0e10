import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSourceName } from '../../src/local-olm.js';
import { temporaryDirectory, writeCatalog } from './catalogs.js';
import { catalogRevision, csvPhase, getJson, operatorGroup, subscription, waitForSucceeded, type Json } from './kubectl-objects.js';
import { e2eUnavailableReason, eventually, startOlmUp, type OlmUp } from './olm-up.js';

const unavailable = e2eUnavailableReason();
if (unavailable) console.warn(`end-to-end suite skipped: ${unavailable}`);

// Issue 24, items 1-4: the pain points of OLM v0 fixed in the v0 API, as an admin meets them with kubectl.
const pin = 'olm-ts.io/version-pin';

const condition = (object: Json | undefined, type: string) => (object?.status?.conditions as Json[] | undefined)?.find((entry) => entry.type === type);
const csvNames = async (up: OlmUp, namespace: string) => ((await getJson(up, ['csv', '-n', namespace]))?.items ?? []).map((item: Json) => item.metadata.name as string).sort();

describe.skipIf(unavailable !== undefined)('end to end: the v0 pain points, with kubectl against olm up', { timeout: 240_000 }, () => {
  let up: OlmUp;
  const catalogDirectory = temporaryDirectory('olm-e2e-pain-');
  const stable = (...versions: string[]) => ({
    'acme-database': {
      defaultChannel: 'stable',
      channels: { stable: versions.map((version, index) => ({ name: `acme-database.v${version}`, ...(index > 0 ? { replaces: `acme-database.v${versions[index - 1]}` } : {}) })) },
    },
  });

  beforeAll(async () => {
    writeCatalog(catalogDirectory, stable('1.0.0', '1.1.0'));
    up = await startOlmUp({ catalogs: [catalogDirectory] });
  });
  afterAll(async () => {
    expect(await up?.stop()).toBe(0);
    rmSync(catalogDirectory, { recursive: true, force: true });
  });

  it('1. a Subscription to a package that does not exist fails alone: acme-database beside it installs', async () => {
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('beside', ['beside']) + '---' + subscription('beside', 'broken') + '---' + subscription('beside', 'acme-database'));
    await waitForSucceeded(up, 'beside', 'acme-database.v1.2.0');
    const broken = await eventually('broken carries ResolutionFailed', async () => {
      const sub = await getJson(up, ['subscription', 'broken', '-n', 'beside']);
      return condition(sub, 'ResolutionFailed')?.status === 'True' ? sub : undefined;
    });
    expect(condition(broken, 'ResolutionFailed')).toMatchObject({ reason: 'ConstraintsNotSatisfiable' });
    expect(condition(broken, 'ResolutionFailed')!.message).toContain('no operators found in package broken');
    expect(condition(broken, 'ResolutionFailed')!.message).toContain('subscription broken');
    const healthy = await getJson(up, ['subscription', 'acme-database', '-n', 'beside']);
    expect(healthy!.status.installedCSV).toBe('acme-database.v1.2.0');
    expect(condition(healthy, 'ResolutionFailed')?.status ?? 'False').toBe('False');
  });

  it('2. a Manual Subscription waits for approval alone: an Automatic one beside it installs', async () => {
    // acme-monitoring (Manual) requires acme-database (Automatic); nothing requires acme-monitoring.
    // acme-database's Subscription comes first: a pass that saw only the Manual one would hold acme-database,
    // then a dependency no Subscription asks for, in the Manual plan with it (as upstream holds every step).
    await up.kubectlOk(
      ['apply', '-f', '-'],
      operatorGroup('approval', ['approval']) + '---' + subscription('approval', 'acme-database') + '---' + subscription('approval', 'acme-monitoring', { installPlanApproval: 'Manual' }),
    );
    await waitForSucceeded(up, 'approval', 'acme-database.v1.2.0');
    const waiting = await eventually('acme-monitoring waits for approval', async () => {
      const plans = ((await getJson(up, ['installplans', '-n', 'approval']))?.items ?? []) as Json[];
      return plans.find((plan) => plan.status?.phase === 'RequiresApproval');
    });
    expect(waiting.spec).toMatchObject({ approval: 'Manual', approved: false, clusterServiceVersionNames: ['acme-monitoring.v0.1.0'] });
    const plans = ((await getJson(up, ['installplans', '-n', 'approval']))?.items ?? []) as Json[];
    expect(plans.find((plan) => plan.spec.clusterServiceVersionNames.includes('acme-database.v1.2.0'))!.spec).toMatchObject({ approval: 'Automatic', clusterServiceVersionNames: ['acme-database.v1.2.0'] });
    expect(await csvNames(up, 'approval')).toEqual(['acme-database.v1.2.0']);
    await up.kubectlOk(['patch', 'installplan', waiting.metadata.name, '-n', 'approval', '--type', 'merge', '-p', '{"spec":{"approved":true}}']);
    await waitForSucceeded(up, 'approval', 'acme-monitoring.v0.1.0');
  });

  const source = () => catalogSourceName(catalogDirectory);

  it('3. a version pin holds across a catalog update, says why in a condition, and lifting it upgrades', async () => {
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('pinned', ['pinned']));
    await up.kubectlOk(
      ['apply', '-f', '-'],
      `apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: acme-database, namespace: pinned, annotations: {${pin}: "<1.2.0"}}
spec: {name: acme-database, source: ${source()}, sourceNamespace: olm, channel: stable}
`,
    );
    await waitForSucceeded(up, 'pinned', 'acme-database.v1.1.0');
    const before = await catalogRevision(up, source());
    writeCatalog(catalogDirectory, stable('1.0.0', '1.1.0', '1.2.0'));
    await eventually('the catalog with 1.2.0 published', async () => ((await catalogRevision(up, source())) !== before ? true : undefined), 30_000);
    const pinned = await eventually('VersionPinned names the version that waits', async () => {
      const sub = await getJson(up, ['subscription', 'acme-database', '-n', 'pinned']);
      return condition(sub, 'VersionPinned')?.status === 'True' ? condition(sub, 'VersionPinned') : undefined;
    });
    expect(pinned.message).toContain('acme-database.v1.2.0');
    expect(pinned.message).toContain('<1.2.0');
    expect(await csvNames(up, 'pinned')).toEqual(['acme-database.v1.1.0']);
    expect((await getJson(up, ['installplans', '-n', 'pinned']))!.items.flatMap((plan: Json) => plan.spec.clusterServiceVersionNames)).not.toContain('acme-database.v1.2.0');

    await up.kubectlOk(['annotate', 'subscription', 'acme-database', '-n', 'pinned', `${pin}-`]);
    await waitForSucceeded(up, 'pinned', 'acme-database.v1.2.0', 120_000);
  });

  it('4. olm history lists the revisions; olm rollback --to 1.1.0 goes back, pinned, and it holds', async () => {
    await eventually('1.2.0 recorded', async () => ((await up.olm(['history', 'acme-database', '-n', 'pinned'])).stdout.includes('acme-database.v1.2.0') ? true : undefined));
    const history = await up.olm(['history', 'acme-database', '-n', 'pinned']);
    expect(history.code).toBe(0);
    const rows = history.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^REVISION\s+CSV\s+VERSION\s+INSTALLED\s+INSTALLPLAN\s+STATUS$/);
    expect(rows.slice(1).map((row) => row.split(/\s+/).slice(0, 3))).toEqual([['1', 'acme-database.v1.1.0', '1.1.0'], ['2', 'acme-database.v1.2.0', '1.2.0']]);
    expect(rows[2]).toMatch(/install-\S+\s+installed$/);

    // Without a terminal and without --yes, nothing changes.
    const unconfirmed = await up.olm(['rollback', 'acme-database', '--to', '1.1.0', '-n', 'pinned']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stdout).toContain('rolls back to: acme-database.v1.1.0 (1.1.0), channel stable');
    expect(unconfirmed.stdout).toContain('databases.acme.example.com: safe');
    expect(unconfirmed.stderr).toContain('pass --yes');
    const unknown = await up.olm(['rollback', 'acme-database', '--to', '0.9.0', '-n', 'pinned', '--yes']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('version 0.9.0 of acme-database is not in catalog');
    expect(unknown.stderr).toMatch(/offers .*1\.1\.0/);
    expect(await csvNames(up, 'pinned')).toEqual(['acme-database.v1.2.0']);

    const rollback = await up.olm(['rollback', 'acme-database', '--to', '1.1.0', '-n', 'pinned', '--yes']);
    expect(rollback.code, rollback.stderr + rollback.stdout).toBe(0);
    expect(rollback.stdout).toContain('acme-database rolled back to 1.1.0');
    await waitForSucceeded(up, 'pinned', 'acme-database.v1.1.0');
    const sub = await getJson(up, ['subscription', 'acme-database', '-n', 'pinned']);
    expect(sub!.metadata.annotations[pin]).toBe('1.1.0');
    // It holds: the newer version waits behind the pin, and is not installed again.
    const held = await eventually('VersionPinned after the rollback', async () => {
      const current = await getJson(up, ['subscription', 'acme-database', '-n', 'pinned']);
      return condition(current, 'VersionPinned')?.status === 'True' ? condition(current, 'VersionPinned') : undefined;
    });
    expect(held.message).toContain('acme-database.v1.2.0');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await csvNames(up, 'pinned')).toEqual(['acme-database.v1.1.0']);
    expect(await csvPhase(up, 'pinned', 'acme-database.v1.1.0')).toBe('Succeeded');
    const after = await eventually('the rollback recorded', async () => {
      const run = await up.olm(['history', 'acme-database', '-n', 'pinned', '-o', 'json']);
      const parsed = JSON.parse(run.stdout) as { revisions: Array<{ csv: string }> };
      return parsed.revisions.length === 3 ? parsed : undefined;
    });
    expect(after.revisions.map((entry) => entry.csv)).toEqual(['acme-database.v1.1.0', 'acme-database.v1.2.0', 'acme-database.v1.1.0']);
  });

  it('4b. olm rollback refuses, changing nothing, when the earlier CRD would drop a version custom resources are read in', async () => {
    // acme-database 2.0.0 serves databases in v2 as well; 1.2.0's CRD has only v1.
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('crd-guard', ['crd-guard']) + '---' + subscription('crd-guard', 'acme-database', { channel: 'fast', startingCSV: 'acme-database.v1.2.0' }));
    await waitForSucceeded(up, 'crd-guard', 'acme-database.v2.0.0', 120_000);
    await up.kubectlOk(['apply', '-f', '-'], 'apiVersion: acme.example.com/v2\nkind: Database\nmetadata: {name: orders, namespace: crd-guard}\nspec: {engine: postgres, replicas: 2}\n');
    const refused = await up.olm(['rollback', 'acme-database', '--to', '1.2.0', '-n', 'crd-guard', '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('databases.acme.example.com: refused: not allowing CRD (databases.acme.example.com) update with unincluded version v2');
    expect(refused.stdout).toContain('nothing was changed');
    expect(await csvNames(up, 'crd-guard')).toEqual(['acme-database.v2.0.0']);
    expect((await getJson(up, ['subscription', 'acme-database', '-n', 'crd-guard']))!.metadata.annotations?.[pin]).toBeUndefined();
  });

  it('4c. a Manual Subscription rolls back too: confirming the rollback approves its plan', async () => {
    await up.kubectlOk(['delete', 'database', 'orders', '-n', 'crd-guard']);
    await up.kubectlOk(['patch', 'subscription', 'acme-database', '-n', 'crd-guard', '--type', 'merge', '-p', '{"spec":{"installPlanApproval":"Manual"}}']);
    const rollback = await up.olm(['rollback', 'acme-database', '--to', '1.2.0', '-n', 'crd-guard', '--yes']);
    expect(rollback.code, rollback.stderr + rollback.stdout).toBe(0);
    expect(rollback.stdout).toContain('confirming approves the rollback\'s InstallPlan');
    expect(rollback.stdout).toMatch(/install plan crd-guard\/install-\S+ of the rollback approved/);
    await waitForSucceeded(up, 'crd-guard', 'acme-database.v1.2.0');
    expect(await csvNames(up, 'crd-guard')).toEqual(['acme-database.v1.2.0']);
    const sub = await getJson(up, ['subscription', 'acme-database', '-n', 'crd-guard']);
    expect(sub!.spec).toMatchObject({ channel: 'fast', installPlanApproval: 'Manual', startingCSV: 'acme-database.v1.2.0' });
  });
});

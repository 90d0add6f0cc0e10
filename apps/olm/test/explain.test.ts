import type { CachedObject } from '@olm/core';
import { eventually } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalOlm, type LocalOlm } from './local-olm-cluster.js';
import { runCliCaptured } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

/** `olm explain` against the in-process `olm up`: installed, offered, why not newer, what to do (issue 24 items 5 and 6). */
describe('olm explain', () => {
  let olm: LocalOlm;
  beforeAll(async () => {
    olm = await startLocalOlm();
  });
  afterAll(async () => {
    await olm?.stop();
  });

  const subscribe = async (namespace: string, name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) => {
    if (!(await olm.client.find({ apiVersion: 'v1', kind: 'Namespace', name: namespace }))) {
      await olm.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      await olm.client.create({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og', namespace }, spec: { targetNamespaces: [namespace] } });
    }
    await olm.client.create({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
      spec: { channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm', installPlanApproval: 'Automatic', ...spec },
    });
  };
  const subscription = (namespace: string, name: string) => olm.client.get<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', namespace, name });
  const explain = (name: string, namespace: string, ...flags: string[]) => runCliCaptured(['explain', name, '--kubeconfig', olm.kubeconfigPath, '-n', namespace, ...flags]);

  it('a pinned operator: installed, offered, the pin that holds the newer version back, and the command that lifts it', async () => {
    await subscribe('explain-pin', 'acme-database', { name: 'acme-database', startingCSV: 'acme-database.v1.0.0' }, { 'olm-ts.io/version-pin': '<1.2.0' });
    await eventually(async () => (await subscription('explain-pin', 'acme-database')).status?.conditions?.some((condition: { type: string }) => condition.type === 'VersionPinned'), { timeoutMs: 60_000 });
    await eventually(async () => (await explain('acme-database', 'explain-pin')).stdout.includes('Installed: acme-database.v1.1'), { timeoutMs: 60_000 });
    const run = await explain('acme-database', 'explain-pin');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Subscription explain-pin/acme-database: package acme-database, channel stable of catalog olm/acme-examples, approval Automatic, pinned to "<1.2.0"');
    expect(run.stdout).toMatch(/Offered in channel stable: 1\.2\.0, .*1\.0\.0/);
    expect(run.stdout).toContain('a newer version waits: acme-database.v1.2.0 (version 1.2.0) is available but outside the version pin "<1.2.0"');
    expect(run.stdout).toContain('what to do: kubectl annotate subscription acme-database -n explain-pin olm-ts.io/version-pin-');
    const json = JSON.parse((await explain('acme-database', 'explain-pin', '-o', 'json')).stdout);
    expect(json).toMatchObject({ package: 'acme-database', versionPin: '<1.2.0', installed: { phase: 'Succeeded' } });
  });

  it('a broken Subscription: the readable failure, split into why and what to do, while the healthy one beside it installs', async () => {
    await subscribe('explain-broken', 'broken', { name: 'acme-databse' });
    await subscribe('explain-broken', 'acme-monitoring', { name: 'acme-monitoring' });
    await eventually(async () => (await subscription('explain-broken', 'broken')).status?.conditions?.some((condition: { type: string }) => condition.type === 'ResolutionFailed'), { timeoutMs: 60_000 });
    const run = await explain('broken', 'explain-broken');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Installed: nothing yet');
    expect(run.stdout).toContain('resolution fails (ConstraintsNotSatisfiable): constraints not satisfiable: no operators found in package acme-databse');
    expect(run.stdout).toContain('catalogs searched: olm/acme-examples');
    expect(run.stdout).toContain('what to do: correct spec.name; did you mean acme-database?');
    await eventually(async () => (await subscription('explain-broken', 'acme-monitoring')).status?.installedCSV, { timeoutMs: 60_000 });
  });

  it('a Manual Subscription: the plan that waits and the command that approves it; an unknown name lists what is there', async () => {
    await subscribe('explain-manual', 'acme-database', { name: 'acme-database', installPlanApproval: 'Manual' });
    await eventually(async () => (await explain('acme-database', 'explain-manual')).stdout.includes('waits for approval'), { timeoutMs: 60_000 });
    const run = await explain('acme-database', 'explain-manual');
    expect(run.stdout).toMatch(/acme-database\.v1\.2\.0 waits for approval in InstallPlan install-\w+ \(approval Manual\)/);
    expect(run.stdout).toMatch(/what to do: olm approve install-\w+ -n explain-manual/);
    const unknown = await explain('acme-databse', 'explain-manual');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('did you mean acme-database?');
  });

  it('olm upgrade --dry-run shows what approving the waiting upgrade changes, and changes nothing', async () => {
    const namespace = 'upgrade-dry-run';
    await subscribe(namespace, 'acme-database', { name: 'acme-database', channel: 'fast', startingCSV: 'acme-database.v1.2.0', installPlanApproval: 'Manual' });
    const upgradeOf = (...flags: string[]) => runCliCaptured(['upgrade', 'acme-database', '--kubeconfig', olm.kubeconfigPath, '-n', namespace, ...flags]);
    const waiting = /install plan \S+ waits for approval/;
    await eventually(async () => waiting.test((await upgradeOf()).stdout), { timeoutMs: 60_000 });
    expect((await upgradeOf('--approve', '--no-wait')).code).toBe(0);
    await eventually(async () => (await upgradeOf()).stdout.includes('acme-database.v1.2.0 -> acme-database.v2.0.0'), { timeoutMs: 60_000 });
    const run = await upgradeOf('--dry-run');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('permissions: unchanged');
    expect(run.stdout).toContain('images:\n  + registry.example.com/acme/acme-database-operator:v2.0.0\n  - registry.example.com/acme/acme-database-operator:v1.2.0');
    expect(run.stdout).toMatch(/databases\.acme\.example\.com: version v2 added/);
    // Nothing was approved.
    expect((await upgradeOf()).stdout).toMatch(waiting);
  });
});


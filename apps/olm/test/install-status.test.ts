import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crds } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

describe('olm install and olm status (without controllers or packageserver)', () => {
  let server: ApiServer;
  let client: KubeClient;
  let kubeconfig: string;

  beforeAll(async () => {
    server = await startApiServer({ port: 0 });
    client = new KubeClient({ kubeconfig: server.kubeconfig });
    kubeconfig = join(await mkdtemp(join(tmpdir(), 'olm-install-')), 'kubeconfig');
    await writeFile(kubeconfig, server.kubeconfig);
    for (const crd of crds) await client.create(crd as unknown as Json);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olm' } });
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('explains that a CatalogSource is needed', async () => {
    const run = await runCliCaptured(['install', 'acme-backup', '--kubeconfig', kubeconfig, '-n', 'team-a', '--no-wait']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no CatalogSource in team-a or olm');
    // Refused before any write: no namespace or OperatorGroup left behind.
    expect(await client.find({ apiVersion: 'v1', kind: 'Namespace', name: 'team-a' })).toBeUndefined();
  });

  it('creates the namespace, an OwnNamespace OperatorGroup and the Subscription, and status shows it', async () => {
    await client.create({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'CatalogSource',
      metadata: { name: 'acme-examples', namespace: 'olm' },
      spec: { sourceType: 'grpc', address: '127.0.0.1:1' },
    });
    const install = await runCliCaptured(['install', 'acme-backup', '--kubeconfig', kubeconfig, '-n', 'team-b', '-c', 'stable', '--approval', 'Manual', '--no-wait']);
    // No packageserver here: the package is not checked, and install says so.
    expect(install.stderr).toMatch(/^warning: the packages\.operators\.coreos\.com API \(PackageManifests\) is not served here \(.*\); the package, channel and version are not checked before subscribing/);
    expect(install.code).toBe(0);
    expect(install.stdout).toContain('operatorgroup team-b/team-b created (watching namespace team-b)');
    expect(install.stdout).toContain('subscription team-b/acme-backup created (catalog olm/acme-examples, channel stable)');
    const group = await client.get<Json>({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', namespace: 'team-b', name: 'team-b' });
    expect(group.spec.targetNamespaces).toEqual(['team-b']);
    // Marked as made for this package, for olm uninstall.
    expect(group.metadata!.annotations).toEqual({ 'olm.local/created-for-package': 'acme-backup' });
    const subscription = await client.get<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', namespace: 'team-b', name: 'acme-backup' });
    expect(subscription.spec).toMatchObject({
      name: 'acme-backup',
      source: 'acme-examples',
      sourceNamespace: 'olm',
      installPlanApproval: 'Manual',
      channel: 'stable',
    });

    const again = await runCliCaptured(['install', 'acme-backup', '--kubeconfig', kubeconfig, '-n', 'team-b', '--no-wait']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('subscription team-b/acme-backup already exists');

    const status = await runCliCaptured(['status', '--kubeconfig', kubeconfig, '-n', 'team-b']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^NAMESPACE\s+SUBSCRIPTION\s+PACKAGE\s+CHANNEL\s+STATE\s+CSV\s+PHASE\s+REASON$/m);
    expect(status.stdout).toMatch(/^team-b\s+acme-backup\s+acme-backup\s+stable$/m);
    const json = await runCliCaptured(['status', '--kubeconfig', kubeconfig, '-n', 'team-b', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual({
      subscriptions: [{ namespace: 'team-b', subscription: 'acme-backup', package: 'acme-backup', channel: 'stable', state: '', csv: '', phase: '', reason: '' }],
      installPlansWaitingForApproval: [],
    });
    const badFormat = await runCliCaptured(['status', '--kubeconfig', kubeconfig, '-o', 'table']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain("option '-o, --output <format>' argument 'table' is invalid. Allowed choices are json, yaml.");
  });

  it('needs the PackageManifests for --version', async () => {
    const run = await runCliCaptured(['install', 'acme-backup', '--kubeconfig', kubeconfig, '-n', 'team-v', '--version', '0.1.0', '--no-wait']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--version needs the PackageManifests of the packages.operators.coreos.com API to find its CSV; pass --starting-csv NAME instead');
    expect(await client.find({ apiVersion: 'v1', kind: 'Namespace', name: 'team-v' })).toBeUndefined();
  });

  it('says how to fix an unreachable cluster', async () => {
    const unreachable = join(kubeconfig, '..', 'unreachable-kubeconfig');
    // Port 1 on loopback: nothing listens, the connection is refused.
    await writeFile(unreachable, server.kubeconfig.replace(/server: \S+/, 'server: http://127.0.0.1:1'));
    for (const args of [['status'], ['install', 'acme-backup', '--no-wait']]) {
      const run = await runCliCaptured([...args, '--kubeconfig', unreachable]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('127.0.0.1:1');
      expect(run.stderr).toContain('ECONNREFUSED');
      expect(run.stderr).toContain('hint: no Kubernetes API server answered there: start one (`olm up` writes .olm/kubeconfig), or point --kubeconfig or KUBECONFIG at a running cluster');
    }
  });

  it('names the flag of a bad --timeout', async () => {
    const run = await runCliCaptured(['install', 'x', '--kubeconfig', kubeconfig, '--timeout', 'soon']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`option '--timeout <ms>' argument 'soon' is invalid. give a whole number of milliseconds`);
  });

  it('names an unknown --source and the ones it can see', async () => {
    const run = await runCliCaptured(['install', 'x', '--kubeconfig', kubeconfig, '-n', 'team-c', '--source', 'nope', '--no-wait']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('CatalogSource nope not found in team-c or olm; visible: olm/acme-examples');
  });
});

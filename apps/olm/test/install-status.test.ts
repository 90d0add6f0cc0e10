import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crds } from '@olm/api';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

/** Request options of the admin (the server's token). */
function admin(server: ApiServer): RequestInit {
  return { headers: { authorization: `Bearer ${server.token}` } };
}

async function post(server: ApiServer, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
}

describe('olm install and olm status (without controllers)', () => {
  let server: ApiServer;
  let kubeconfig: string;

  beforeAll(async () => {
    server = await startApiServer({ port: 0 });
    kubeconfig = join(await mkdtemp(join(tmpdir(), 'olm-install-')), 'kubeconfig');
    await writeFile(kubeconfig, server.kubeconfig);
    for (const crd of crds) await post(server, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    await post(server, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olm' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('explains that a CatalogSource is needed', async () => {
    const run = await runCliCaptured(['install', 'acme-backup', '--kubeconfig', kubeconfig, '-n', 'team-a', '--no-wait']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no CatalogSource in team-a or olm');
    // Refused before any write: no namespace or OperatorGroup left behind.
    expect((await fetch(`${server.url}/api/v1/namespaces/team-a`, admin(server))).status).toBe(404);
  });

  it('creates the namespace, an OwnNamespace OperatorGroup and the Subscription, and status shows it', async () => {
    await post(server, '/apis/operators.coreos.com/v1alpha1/namespaces/olm/catalogsources', {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'CatalogSource',
      metadata: { name: 'acme-examples', namespace: 'olm' },
      spec: { sourceType: 'grpc', address: '127.0.0.1:1' },
    });
    const install = await runCliCaptured(['install', 'acme-backup', '--kubeconfig', kubeconfig, '-n', 'team-b', '-c', 'stable', '--approval', 'Manual', '--no-wait']);
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
    expect(install.stdout).toContain('operatorgroup team-b/team-b created (watching namespace team-b)');
    expect(install.stdout).toContain('subscription team-b/acme-backup created (catalog olm/acme-examples, channel stable)');
    const group = (await (await fetch(`${server.url}/apis/operators.coreos.com/v1/namespaces/team-b/operatorgroups/team-b`, admin(server))).json()) as { spec: { targetNamespaces: string[] } };
    expect(group.spec.targetNamespaces).toEqual(['team-b']);
    const subscription = (await (await fetch(`${server.url}/apis/operators.coreos.com/v1alpha1/namespaces/team-b/subscriptions/acme-backup`, admin(server))).json()) as { spec: Record<string, unknown> };
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

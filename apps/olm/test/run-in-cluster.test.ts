import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '@olm/controller-runtime';
import type { CachedObject } from '@olm/core';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runControllers, type RunOptions } from '../src/commands/run.js';
import { installOlmResources } from '../src/local-olm.js';
import { runCliCaptured, testRunOptions } from './run-cli.js';

// A pod's view, simulated with real parts: an HTTPS API server that requires a bearer token, and
// the files Kubernetes mounts under /var/run/secrets/kubernetes.io/serviceaccount (below a
// temporary root here), found through KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT.
describe('olm run in a pod (service-account credentials)', () => {
  const token = 'service-account-token-for-tests';
  const environment = ['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'HOME'] as const;
  const saved = new Map<string, string | undefined>();
  let server: ApiServer;
  let client: KubeClient;
  let root: string;

  beforeAll(async () => {
    server = await startApiServer({ port: 0, tls: true, token });
    client = new KubeClient({ kubeconfig: server.kubeconfig });
    await installOlmResources(client, { namespace: 'olm' });
    root = await mkdtemp(join(tmpdir(), 'olm-pod-root-'));
    const accountDirectory = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    await mkdir(accountDirectory, { recursive: true });
    const cluster = (parse(server.kubeconfig) as { clusters: Array<{ cluster: Record<string, string> }> }).clusters[0]!.cluster;
    await writeFile(join(accountDirectory, 'ca.crt'), Buffer.from(cluster['certificate-authority-data']!, 'base64'));
    await writeFile(join(accountDirectory, 'token'), token);
    await writeFile(join(accountDirectory, 'namespace'), 'olm');
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    for (const name of environment) saved.set(name, process.env[name]);
    delete process.env.KUBECONFIG;
    // No ~/.kube/config either: the service account is the last resort, as in kubectl.
    process.env.HOME = join(root, 'home');
    process.env.KUBERNETES_SERVICE_HOST = '127.0.0.1';
    process.env.KUBERNETES_SERVICE_PORT = String(server.port);
  });
  afterEach(() => {
    for (const name of environment) {
      const value = saved.get(name);
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  const leaseHolder = async (name: string) =>
    (await client.find<CachedObject & { spec?: { holderIdentity?: string } }>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'olm', name }))?.spec?.holderIdentity;

  async function runUntilLeader(options: Partial<RunOptions>, lease: string): Promise<void> {
    const running = runControllers(
      testRunOptions({ leaderElection: true, serviceAccountRoot: root, ...options }),
      () => {},
    );
    try {
      // The Lease is written with the service account's token over TLS checked against ca.crt.
      await expect.poll(() => leaseHolder(lease), { timeout: 30_000, interval: 200 }).toBeTruthy();
    } finally {
      process.emit('SIGTERM');
      await running;
    }
  }

  it('the server refuses requests without the token (so the controllers below used it)', async () => {
    const ca = await readFile(join(root, 'var/run/secrets/kubernetes.io/serviceaccount/ca.crt'));
    const status = (headers: Record<string, string>) =>
      new Promise<number | undefined>((resolve, reject) => {
        get(`${server.url}/api/v1/namespaces`, { ca, headers }, (response) => {
          response.resume();
          resolve(response.statusCode);
        }).once('error', reject);
      });
    expect(await status({})).toBe(403);
    expect(await status({ authorization: `Bearer ${token}` })).toBe(200);
  });

  it('uses the service account with --in-cluster', async () => {
    await runUntilLeader({ inCluster: true, controllers: ['csv'] }, 'olm-controllers-csv');
  });

  it('uses the service account without a flag when there is no kubeconfig, as kubectl does', async () => {
    await runUntilLeader({ controllers: ['catalog'] }, 'olm-controllers-catalog');
  });

  it('explains --in-cluster outside a pod, exit 2', async () => {
    delete process.env.KUBERNETES_SERVICE_HOST;
    delete process.env.KUBERNETES_SERVICE_PORT;
    const result = await runCliCaptured(['run', '--in-cluster', '--exit-after-start']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--in-cluster: this does not look like a pod with a service account');
    expect(result.stderr).toContain('KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
    const both = await runCliCaptured(['run', '--in-cluster', '--kubeconfig', '/dev/null', '--exit-after-start']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('pass either --kubeconfig or --in-cluster, not both');
  });
});

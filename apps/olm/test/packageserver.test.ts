import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import type { ApiServer } from '@olm/local-apiserver';
import { selfSignedCertificate } from '@olm/packageserver';
import { loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { freeLoopbackPort, grpcCatalogSource } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPackageServer, type PackageServerCommandOptions } from '../src/commands/packageserver.js';
import { exampleCatalogDirectory } from '../src/paths.js';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';
import { runCliCaptured } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

/** An HTTPS GET straight to the packageserver (not through the API server), trusting `ca`, with a bearer token if given. */
function getDirect(url: string, ca: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = token !== undefined ? { Authorization: `Bearer ${token}` } : {};
    const call = request(url, { ca, servername: 'packageserver-service.olm.svc', headers }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    call.on('error', reject);
    call.end();
  });
}

/**
 * `olm packageserver` as a Deployment runs it, against the local API server standing in for a
 * cluster: a Service in front of it (here a `clusterIP: 127.0.0.1` Service on its port), the
 * APIService it writes, the packages of a gRPC CatalogSource through the aggregator, and the
 * operations endpoints of `olm run`.
 */
describe('olm packageserver', () => {
  let cluster: OlmCluster;
  let server: ApiServer;
  let client: KubeClient;
  let registry: RegistryServer;
  let directory: string;
  let kubeconfig: string;

  const base = (port: number): PackageServerCommandOptions => ({
    kubeconfig,
    namespace: 'olm',
    host: '127.0.0.1',
    port,
    serviceName: 'packageserver-service',
    servicePort: port,
    register: true,
    metricsPort: 0,
    metricsHost: '127.0.0.1',
    logLevel: 'silent',
    runFor: 60_000,
  });

  /** Runs the command until the test is done with it (SIGTERM), returning what it printed. */
  async function running<T>(options: PackageServerCommandOptions, use: (printed: string) => Promise<T>): Promise<T> {
    let printed = '';
    const run = runPackageServer(options, (text) => (printed += text));
    try {
      await expect.poll(() => printed, { timeout: 30_000 }).toContain('packageserver serving');
      return await use(printed);
    } finally {
      process.emit('SIGTERM');
      await run;
    }
  }

  /** What deploy/40-packageserver.yaml's Service is here: the API server reaches 127.0.0.1:<port>. */
  const serviceOnPort = (port: number) =>
    client.patch({ apiVersion: 'v1', kind: 'Service', namespace: 'olm', name: 'packageserver-service' }, { spec: { ports: [{ name: 'https', port }] } }).catch(() =>
      client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'packageserver-service', namespace: 'olm' }, spec: { clusterIP: '127.0.0.1', ports: [{ name: 'https', port }] } } as Json),
    );

  const apiService = () => client.find<Json>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.packages.operators.coreos.com' });

  beforeAll(async () => {
    cluster = await startOlmCluster({ apiServiceCheckIntervalMs: 500, catalogs: [] });
    ({ server, client, kubeconfigPath: kubeconfig } = cluster);
    directory = await mkdtemp(join(tmpdir(), 'olm-packageserver-'));
    registry = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDirectory), port: 0 });
    await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address, { spec: { displayName: 'Acme examples' } }));
  }, 60_000);
  afterAll(async () => {
    await registry?.stop();
    await cluster?.stop();
    await rm(directory, { recursive: true, force: true });
  });

  it('registers the APIService for the Service in front of it, serves the packages through the aggregator, and /metrics, /healthz, /readyz', async () => {
    const port = await freeLoopbackPort();
    await serviceOnPort(port);
    await running(base(port), async (printed) => {
      expect(printed).toContain(`packageserver serving packages.operators.coreos.com/v1 on https://127.0.0.1:${port} (APIService v1.packages.operators.coreos.com -> Service olm/packageserver-service:${port})`);
      const operations = /metrics, health and readiness on (http:\/\/\S+)/.exec(printed)![1]!;
      // Ready only once the catalogs were read: the lists are complete from the first request.
      expect((await fetch(`${operations}/readyz`)).status).toBe(200);
      expect((await fetch(`${operations}/healthz`)).status).toBe(200);
      expect(await (await fetch(`${operations}/metrics`)).text()).toMatch(/^process_cpu_user_seconds_total /m);

      const registered = await apiService();
      expect(registered?.spec).toMatchObject({ group: 'packages.operators.coreos.com', version: 'v1', groupPriorityMinimum: 2000, versionPriority: 15, service: { namespace: 'olm', name: 'packageserver-service', port } });
      expect(registered?.spec.insecureSkipTLSVerify).toBeUndefined();
      const caBundle = Buffer.from(registered?.spec.caBundle, 'base64').toString();
      expect(caBundle).toMatch(/^-----BEGIN CERTIFICATE-----/);
      // It left the Service alone (a cluster's Service selects the pods).
      expect((await client.get<Json>({ apiVersion: 'v1', kind: 'Service', namespace: 'olm', name: 'packageserver-service' })).spec).toMatchObject({ clusterIP: '127.0.0.1' });

      const list = await expect
        .poll(async () => ((await client.request({ method: 'GET', path: '/apis/packages.operators.coreos.com/v1/namespaces/default/packagemanifests' }).catch(() => ({ items: [] }))) as Json).items, { timeout: 20_000 })
        .toHaveLength(3)
        .then(async () => (await client.request({ method: 'GET', path: '/apis/packages.operators.coreos.com/v1/namespaces/default/packagemanifests' })) as Json);
      expect(list.items.map((item: Json) => item.metadata?.name)).toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
      // The certificate written as caBundle is the one it serves, valid for the Service's DNS name.
      expect((await getDirect(`https://127.0.0.1:${port}/healthz`, caBundle)).status).toBe(200);
    });
  });

  it('serves a given certificate and writes it to the APIService as the CA', async () => {
    const port = await freeLoopbackPort();
    await serviceOnPort(port);
    const material = await selfSignedCertificate({ hosts: ['packageserver-service.olm.svc'], commonName: 'given' });
    await writeFile(join(directory, 'tls.crt'), material.cert);
    await writeFile(join(directory, 'tls.key'), material.key);
    await running({ ...base(port), tlsCertFile: join(directory, 'tls.crt'), tlsKeyFile: join(directory, 'tls.key') }, async () => {
      expect(Buffer.from((await apiService())?.spec.caBundle, 'base64').toString()).toBe(material.cert);
      const url = `https://127.0.0.1:${port}/apis/packages.operators.coreos.com/v1/namespaces/olm/packagemanifests/acme-database`;
      // Callers authenticate (the packageserver reviews their token with the API server), as with any aggregated API server.
      expect((await getDirect(url, material.cert)).status).toBe(401);
      const answer = await getDirect(url, material.cert, server.token);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).status.defaultChannel).toBe('stable');
      await expect
        .poll(async () => ((await client.request({ method: 'GET', path: '/apis/packages.operators.coreos.com/v1/namespaces/olm/packagemanifests/acme-database' }).catch(() => undefined)) as Json | undefined)?.metadata?.name, { timeout: 20_000 })
        .toBe('acme-database');
    });
  });

  it('with --client-ca-file refuses clients without a certificate; --no-register leaves the APIService as it is', async () => {
    const port = await freeLoopbackPort();
    const clientCa = await selfSignedCertificate({ hosts: ['front-proxy-ca'] });
    await writeFile(join(directory, 'front-proxy-ca.crt'), clientCa.cert);
    const before = await apiService();
    await running({ ...base(port), register: false, clientCaFile: join(directory, 'front-proxy-ca.crt') }, async (printed) => {
      expect(printed).toContain(`on https://127.0.0.1:${port} (not registered)`);
      // Still the previous test's registration (its status aside: that server has stopped).
      expect((await apiService())?.spec).toEqual(before?.spec);
      const direct = new Promise((resolve, reject) => {
        const call = request(`https://127.0.0.1:${port}/healthz`, { rejectUnauthorized: false }, (response) => resolve(response.statusCode));
        call.on('error', reject);
        call.end();
      });
      await expect(direct).rejects.toThrow(/certificate|socket hang up|ECONNRESET|alert/i);
    });
  });

  it('says which flag is wrong before connecting anywhere', async () => {
    const half = await runCliCaptured(['packageserver', '--kubeconfig', kubeconfig, '--tls-cert-file', join(directory, 'tls.crt'), '--exit-after-start']);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--tls-cert-file and --tls-key-file go together');
    const missing = await runCliCaptured(['packageserver', '--kubeconfig', kubeconfig, '--client-ca-file', join(directory, 'nope.crt'), '--exit-after-start']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--client-ca-file ${join(directory, 'nope.crt')}: cannot read it`);
    const port = await runCliCaptured(['packageserver', '--kubeconfig', kubeconfig, '--port', 'https', '--exit-after-start']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain(`option '--port <port>' argument 'https' is invalid`);
  });
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { renderKubeconfig, type ApiServer } from '@olm/local-apiserver';
import { loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { freeLoopbackPort, grpcCatalogSource } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runPackageServer } from '../src/commands/packageserver.js';
import { exampleCatalogDirectory } from '../src/paths.js';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';

type Json = CachedObject & Record<string, any>;

const deployFile = fileURLToPath(new URL('../../../deploy/40-packageserver.yaml', import.meta.url));

/**
 * `olm packageserver` with the least privilege of deploy/40-packageserver.yaml: it authenticates as
 * the `packageserver` ServiceAccount (a TokenRequest token), reads CatalogSources, and writes only
 * its own APIService, which the manifest creates.
 */
describe('olm packageserver as the packageserver ServiceAccount of deploy/40-packageserver.yaml (RBAC enforced)', () => {
  let cluster: OlmCluster;
  let server: ApiServer;
  let admin: KubeClient;
  let registry: RegistryServer;
  let directory: string;
  let port: number;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'olm-packageserver-rbac-'));
    cluster = await startOlmCluster({ apiServiceCheckIntervalMs: 500, catalogs: [] });
    ({ server, client: admin } = cluster);
    port = await freeLoopbackPort();
    // The manifest as a cluster admin applies it, but for the Deployment (this process is the pod)
    // and with the Service at 127.0.0.1:<port>, where the packageserver listens here.
    for (const document of parseAllDocuments(await readFile(deployFile, 'utf8'))) {
      const object = document.toJS() as Json;
      if (object.kind === 'Deployment') continue;
      if (object.kind === 'Service') object.spec = { clusterIP: '127.0.0.1', ports: [{ name: 'https', port }] };
      if (object.kind === 'APIService') object.spec.service.port = port;
      await admin.apply(object, { fieldManager: 'kubectl', force: true });
    }
    registry = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDirectory), port: 0 });
    await admin.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
  }, 60_000);
  afterAll(async () => {
    await registry?.stop();
    await cluster?.stop();
    await rm(directory, { recursive: true, force: true });
  });

  it('registers its APIService and serves the packages through the aggregator', async () => {
    const request = (await admin.request({ method: 'POST', path: '/api/v1/namespaces/olm/serviceaccounts/packageserver/token', body: { spec: {} } })) as Json;
    const kubeconfig = join(directory, 'packageserver.kubeconfig');
    await writeFile(kubeconfig, renderKubeconfig({ server: server.url, token: request.status.token as string, namespace: 'olm' }), { mode: 0o600 });
    let printed = '';
    const run = runPackageServer(
      { kubeconfig, namespace: 'olm', host: '127.0.0.1', port, serviceName: 'packageserver-service', servicePort: port, register: true, metricsPort: 0, metricsHost: '127.0.0.1', logLevel: 'silent', runFor: 60_000 },
      (text) => (printed += text),
    );
    try {
      await expect.poll(() => printed, { timeout: 30_000 }).toContain('packageserver serving');
      const apiService = await admin.get<Json>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.packages.operators.coreos.com' });
      expect(Buffer.from(apiService.spec.caBundle as string, 'base64').toString()).toMatch(/^-----BEGIN CERTIFICATE-----/);
      await expect
        .poll(async () => (((await admin.request({ method: 'GET', path: '/apis/packages.operators.coreos.com/v1/namespaces/default/packagemanifests' }).catch(() => ({ items: [] }))) as Json).items as Json[]).map((item) => item.metadata?.name), { timeout: 20_000 })
        .toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
    } finally {
      process.emit('SIGTERM');
      await run;
    }
    expect(printed).not.toMatch(/forbidden/i);
  }, 90_000);
});

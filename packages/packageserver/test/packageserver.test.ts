import type { KubeClient } from '@olm/core';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig, Watch } from '@kubernetes/client-node';
import type { ApiServer } from '@olm/local-apiserver';
import { loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageServerApiServiceName, startPackageServer, type PackageServer } from '../src/index.js';
import { builtInSourceTypes, adminGet, createNamespace, eventually, exampleCatalogDir, grpcCatalogSource, kubectlAvailable, kubectlFor, startCluster, type Json } from './helpers.js';

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn('packageserver kubectl checks skipped: kubectl --client failed (set KUBECTL to a kubectl binary)');

/**
 * The whole path a cluster admin takes: a local API server, a real gRPC registry serving the
 * example catalog as the global CatalogSource `olm/acme-examples`, a namespace-local catalog in
 * `team-a`, and the packageserver registered through an APIService (HTTPS, verified caBundle).
 */
describe('packageserver behind the local API server', () => {
  let cluster: { server: ApiServer; client: KubeClient; stop(): Promise<void> };
  let globalRegistry: RegistryServer;
  let teamRegistry: RegistryServer;
  let teamCatalogDir: string;
  let packageServer: PackageServer;
  let kubectl: ReturnType<typeof kubectlFor>;
  let customObjects: CustomObjectsApi;
  let kubeConfig: KubeConfig;

  const group = 'packages.operators.coreos.com';
  const version = 'v1';
  const plural = 'packagemanifests';

  beforeAll(async () => {
    cluster = await startCluster();
    const { client } = cluster;
    await createNamespace(client, 'team-a');
    await createNamespace(client, 'other-ns');
    globalRegistry = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port: 0 });
    teamCatalogDir = mkdtempSync(join(tmpdir(), 'olm-team-catalog-'));
    cpSync(exampleCatalogDir, teamCatalogDir, { recursive: true });
    teamRegistry = await startRegistryServer({ catalog: () => loadCatalog(teamCatalogDir), port: 0 });
    await client.create(
      grpcCatalogSource('olm', 'acme-examples', globalRegistry.address, {
        labels: { team: 'platform' },
        spec: { displayName: 'Acme examples', publisher: 'Acme Corp' },
      }),
    );
    await client.create(grpcCatalogSource('team-a', 'team-catalog', teamRegistry.address, { spec: { displayName: 'Team A catalog', publisher: 'Team A', priority: 5 } }));
    packageServer = await startPackageServer({ catalogSourceTypes: builtInSourceTypes, client, globalNamespace: 'olm', register: { namespace: 'olm' } });
    await packageServer.waitForSync(30_000);
    await eventually(async () => {
      const apiService = await client.get<Json>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: packageServerApiServiceName });
      return apiService.status?.conditions?.find((condition: Json) => condition.type === 'Available' && condition.status === 'True');
    }, { timeoutMs: 15_000, message: 'the APIService to become Available' });
    kubectl = kubectlFor(cluster.server.kubeconfigPath);
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(cluster.server.kubeconfig);
    customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
  }, 60_000);

  afterAll(async () => {
    kubectl?.close();
    await packageServer?.stop();
    await Promise.all([globalRegistry?.stop(), teamRegistry?.stop()]);
    await cluster?.stop();
    if (teamCatalogDir) rmSync(teamCatalogDir, { recursive: true, force: true });
  });

  it('registers v1.packages.operators.coreos.com with its CA and an ExternalName Service, and is Available', async () => {
    const apiService = await cluster.client.get<Json>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: packageServerApiServiceName });
    expect(apiService.spec).toMatchObject({ group, version, service: { namespace: 'olm', name: 'packageserver-service', port: packageServer.port } });
    expect(Buffer.from(apiService.spec.caBundle, 'base64').toString()).toBe(packageServer.caBundle);
    expect(apiService.spec.insecureSkipTLSVerify).toBeUndefined();
    expect(apiService.status.conditions).toContainEqual(expect.objectContaining({ type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' }));
    const service = await cluster.client.get<Json>({ apiVersion: 'v1', kind: 'Service', namespace: 'olm', name: 'packageserver-service' });
    expect(service.spec).toMatchObject({ type: 'ExternalName', externalName: '127.0.0.1' });
  });

  it.skipIf(!hasKubectl)('kubectl lists the global catalog\'s packages in any namespace, with upstream\'s columns', async () => {
    const result = await kubectl.run(['get', 'packagemanifests', '-n', 'other-ns']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+CATALOG\s+AGE$/);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(0, 2))).toEqual([
      ['acme-backup', 'Acme examples'],
      ['acme-database', 'Acme examples'],
      ['acme-monitoring', 'Acme examples'],
    ]);
    const resources = await kubectl.run(['api-resources', '--api-group', group, '--no-headers']);
    expect(resources.stdout).toMatch(/^packagemanifests\s+packages\.operators\.coreos\.com\/v1\s+true\s+PackageManifest/m);
  });

  it.skipIf(!hasKubectl)('kubectl get -o json: channels, heads, their CSV descriptions, entries newest first and deprecations', async () => {
    const result = await kubectl.run(['get', 'packagemanifest', 'acme-database', '-n', 'other-ns', '-o', 'json']);
    expect(result.stderr).toBe('');
    const manifest = JSON.parse(result.stdout) as Json;
    expect(manifest).toMatchObject({ apiVersion: `${group}/${version}`, kind: 'PackageManifest', spec: {} });
    expect(manifest.metadata).toMatchObject({ name: 'acme-database', namespace: 'other-ns', resourceVersion: expect.stringMatching(/^\d+$/) });
    const catalogSource = await cluster.client.get<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'olm', name: 'acme-examples' });
    expect(manifest.metadata.creationTimestamp).toBe(catalogSource.metadata.creationTimestamp);
    expect(manifest.metadata.labels).toEqual({
      team: 'platform',
      catalog: 'acme-examples',
      'catalog-namespace': 'olm',
      provider: 'Acme Example Operators',
      'provider-url': '',
      'operatorframework.io/os.linux': 'supported',
      'operatorframework.io/arch.amd64': 'supported',
    });
    const status = manifest.status;
    expect(status).toMatchObject({
      catalogSource: 'acme-examples',
      catalogSourceDisplayName: 'Acme examples',
      catalogSourcePublisher: 'Acme Corp',
      catalogSourceNamespace: 'olm',
      packageName: 'acme-database',
      defaultChannel: 'stable',
      provider: { name: 'Acme Example Operators' },
    });
    expect(status.channels.map((channel: Json) => [channel.name, channel.currentCSV])).toEqual([
      ['fast', 'acme-database.v2.0.0'],
      ['stable', 'acme-database.v1.2.0'],
    ]);
    const stable = status.channels[1];
    expect(stable.entries).toEqual([
      { name: 'acme-database.v1.2.0', version: '1.2.0' },
      { name: 'acme-database.v1.1.1', version: '1.1.1', deprecation: { message: 'acme-database.v1.1.1 can lose backups on restart; upgrade to acme-database.v1.2.0.' } },
      { name: 'acme-database.v1.1.0', version: '1.1.0' },
      { name: 'acme-database.v1.0.0', version: '1.0.0' },
    ]);
    expect(status.channels[0].entries).toEqual([
      { name: 'acme-database.v2.0.0', version: '2.0.0' },
      { name: 'acme-database.v1.2.0', version: '1.2.0' },
    ]);
    expect(stable.currentCSVDesc).toEqual({
      displayName: 'Acme Database',
      version: '1.2.0',
      provider: { name: 'Acme Example Operators' },
      annotations: {
        capabilities: 'Basic Install',
        categories: 'Database',
        containerImage: 'registry.example.com/acme/acme-database-operator:v1.2.0',
        description: 'Runs PostgreSQL and MySQL databases declared as Database objects.',
      },
      keywords: ['acme', 'example'],
      links: [{ name: 'Documentation', url: 'https://acme.example.com/docs' }],
      maintainers: [{ name: 'Acme operators team', email: 'operators@acme.example.com' }],
      maturity: 'stable',
      description: 'Runs PostgreSQL and MySQL databases declared as Database objects.',
      installModes: [
        { type: 'OwnNamespace', supported: true },
        { type: 'SingleNamespace', supported: true },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
      customresourcedefinitions: {
        owned: [{ name: 'databases.acme.example.com', version: 'v1', kind: 'Database', displayName: 'Database', description: 'Database managed by Acme Database' }],
      },
      apiservicedefinitions: {},
      minKubeVersion: '1.20.0',
      relatedImages: ['registry.example.com/acme/acme-database-operator:v1.2.0'],
    });
    expect(status.deprecation).toBeUndefined();
  });

  it.skipIf(!hasKubectl)('a namespace sees its own catalogs first; label selectors pick one catalog', async () => {
    const all = await kubectl.run(['get', 'packagemanifests', '-n', 'team-a', '-o', 'jsonpath={range .items[*]}{.metadata.name}/{.status.catalogSource}/{.metadata.namespace} {end}']);
    expect(all.stdout.trim().split(' ')).toEqual([
      'acme-backup/team-catalog/team-a',
      'acme-backup/acme-examples/team-a',
      'acme-database/team-catalog/team-a',
      'acme-database/acme-examples/team-a',
      'acme-monitoring/team-catalog/team-a',
      'acme-monitoring/acme-examples/team-a',
    ]);
    const global = await kubectl.run(['get', 'packagemanifests', '-n', 'team-a', '-l', 'catalog=acme-examples', '-o', 'name']);
    expect(global.stdout.trim().split('\n')).toEqual([
      'packagemanifest.packages.operators.coreos.com/acme-backup',
      'packagemanifest.packages.operators.coreos.com/acme-database',
      'packagemanifest.packages.operators.coreos.com/acme-monitoring',
    ]);
    const team = await kubectl.run(['get', 'packagemanifests', '-n', 'team-a', '-l', 'catalog=team-catalog,catalog-namespace=team-a', '-o', 'jsonpath={.items[*].status.catalogSourceDisplayName}']);
    expect(team.stdout).toBe('Team A catalog Team A catalog Team A catalog');
    const none = await kubectl.run(['get', 'packagemanifests', '-n', 'other-ns', '-l', 'catalog=team-catalog']);
    expect(none.stderr).toMatch(/No resources found in other-ns namespace/);
    // get by name: the namespace's own catalog wins over the global one.
    const got = await kubectl.run(['get', 'packagemanifest', 'acme-backup', '-n', 'team-a', '-o', 'jsonpath={.status.catalogSource}']);
    expect(got.stdout).toBe('team-catalog');
    const allNamespaces = await kubectl.run(['get', 'packagemanifests', '-A', '--no-headers']);
    expect(allNamespaces.stdout.trim().split('\n').map((line) => line.split(/\s+/).slice(0, 2))).toEqual([
      ['team-a', 'acme-backup'],
      ['olm', 'acme-backup'],
      ['team-a', 'acme-database'],
      ['olm', 'acme-database'],
      ['team-a', 'acme-monitoring'],
      ['olm', 'acme-monitoring'],
    ]);
  });

  it.skipIf(!hasKubectl)('kubectl describe shows the package, its channels and heads; a missing package is NotFound', async () => {
    const result = await kubectl.run(['describe', 'packagemanifest', 'acme-database', '-n', 'other-ns']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Name:\s+acme-database$/m);
    expect(result.stdout).toMatch(/^Namespace:\s+other-ns$/m);
    expect(result.stdout).toMatch(/Catalog Source:\s+acme-examples/);
    expect(result.stdout).toMatch(/Default Channel:\s+stable/);
    expect(result.stdout).toMatch(/Current CSV:\s+acme-database\.v1\.2\.0/);
    expect(result.stdout).toMatch(/Current CSV:\s+acme-database\.v2\.0\.0/);
    const missing = await kubectl.run(['get', 'packagemanifest', 'acme-nothing', '-n', 'other-ns']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('Error from server (NotFound): packagemanifests.packages.operators.coreos.com "acme-nothing" not found');
  });

  it.skipIf(!hasKubectl)('kubectl explain describes PackageManifests from the OpenAPI v3 the API server aggregates', async () => {
    const top = await kubectl.run(['explain', 'packagemanifests']);
    expect(top.code, top.stderr).toBe(0);
    expect(top.stdout).toMatch(/^KIND:\s+PackageManifest$/m);
    expect(top.stdout).toMatch(/^GROUP:\s+packages\.operators\.coreos\.com$/m);
    expect(top.stdout).toMatch(/^\s+status\s+<PackageManifestStatus>$/m);
    const nested = await kubectl.run(['explain', 'packagemanifest.status.channels.currentCSVDesc.installModes']);
    expect(nested.code, nested.stderr).toBe(0);
    expect(nested.stdout).toMatch(/^\s+supported\s+<boolean>$/m);
    const wrong = await kubectl.run(['explain', 'packagemanifest.status.nothing']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('nothing');
  });

  it.skipIf(!hasKubectl)('field selectors: metadata.name filters, other fields are refused as upstream does', async () => {
    const one = await kubectl.run(['get', 'packagemanifests', '-n', 'other-ns', '--field-selector', 'metadata.name=acme-monitoring', '-o', 'name']);
    expect(one.stdout.trim()).toBe('packagemanifest.packages.operators.coreos.com/acme-monitoring');
    const refused = await kubectl.run(['get', 'packagemanifests', '-n', 'other-ns', '--field-selector', 'status.packageName=acme-monitoring']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('field label not supported: status.packageName');
  });

  it('client-node reads them through the aggregated API', async () => {
    const list = (await customObjects.listNamespacedCustomObject({ group, version, namespace: 'other-ns', plural })) as Json;
    expect(list.kind).toBe('PackageManifestList');
    expect(list.items.map((item: Json) => item.metadata.name)).toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
    const backup = (await customObjects.getNamespacedCustomObject({ group, version, namespace: 'other-ns', plural, name: 'acme-backup' })) as Json;
    expect(backup.status).toMatchObject({ defaultChannel: 'stable', channels: [{ name: 'stable', currentCSV: 'acme-backup.v0.2.0' }] });
    await expect(customObjects.replaceNamespacedCustomObject({ group, version, namespace: 'other-ns', plural, name: 'acme-backup', body: backup })).rejects.toMatchObject({ code: 405 });
  });

  it('the icon subresource answers with an image (the default one when the CSV has none)', async () => {
    const response = await adminGet(cluster.server, `/apis/${group}/${version}/namespaces/other-ns/${plural}/acme-backup/icon`);
    expect(response.status).toBe(200);
    expect(response.contentType).toBe('image/svg+xml');
    expect(response.body.toString('utf8')).toMatch(/^<svg /);
  });

  it('watches stream the current manifests, then catalog changes and removals', async () => {
    const events: { type: string; object: Json }[] = [];
    const watch = new Watch(kubeConfig);
    const request = await watch.watch(`/apis/${group}/${version}/namespaces/team-a/${plural}`, { labelSelector: 'catalog=team-catalog' }, (type, object) => events.push({ type, object: object as Json }), () => {});
    try {
      await eventually(() => (events.length >= 3 ? true : undefined), { timeoutMs: 10_000, message: 'the initial ADDED events' });
      expect(events.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual(['ADDED acme-backup', 'ADDED acme-database', 'ADDED acme-monitoring']);

      // The team catalog loses a package: its registry reloads, the CatalogSource changes (as `olm up` marks it).
      rmSync(join(teamCatalogDir, 'acme-monitoring'), { recursive: true });
      await teamRegistry.reload();
      await cluster.client.patch({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'team-a', name: 'team-catalog' }, { metadata: { annotations: { revision: '2' } } });
      await eventually(() => events.find((event) => event.type === 'DELETED'), { timeoutMs: 10_000, message: 'a DELETED event' });
      expect(events.slice(3).map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual(['DELETED acme-monitoring']);
      expect(events[3]?.object.metadata.namespace).toBe('team-a');

      // A CatalogSource label change reaches every manifest of the catalog.
      await cluster.client.patch({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'team-a', name: 'team-catalog' }, { metadata: { labels: { tier: 'gold' } } });
      await eventually(() => (events.filter((event) => event.type === 'MODIFIED').length >= 2 ? true : undefined), { timeoutMs: 10_000, message: 'MODIFIED events' });
      expect(events.filter((event) => event.type === 'MODIFIED').map((event) => [event.object.metadata.name, event.object.metadata.labels.tier])).toEqual([
        ['acme-backup', 'gold'],
        ['acme-database', 'gold'],
      ]);

      // Deleting the CatalogSource removes its packages.
      await cluster.client.delete({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'team-a', name: 'team-catalog' });
      await eventually(() => (events.filter((event) => event.type === 'DELETED').length >= 3 ? true : undefined), { timeoutMs: 10_000, message: 'DELETED events' });
      const after = (await customObjects.listNamespacedCustomObject({ group, version, namespace: 'team-a', plural })) as Json;
      expect(after.items.map((item: Json) => item.status.catalogSource)).toEqual(['acme-examples', 'acme-examples', 'acme-examples']);
    } finally {
      request.abort();
    }
  });

  it('an unreachable registry takes its packages away until it answers again', async () => {
    const port = globalRegistry.port;
    await globalRegistry.stop();
    await cluster.client.patch({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'olm', name: 'acme-examples' }, { metadata: { annotations: { revision: 'down' } } });
    await eventually(async () => {
      const list = (await customObjects.listNamespacedCustomObject({ group, version, namespace: 'other-ns', plural })) as Json;
      return list.items.length === 0 ? true : undefined;
    }, { timeoutMs: 15_000, message: 'the packages to go away' });
    globalRegistry = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port });
    // Retried with backoff (1 s, then doubling): no CatalogSource change needed.
    await eventually(async () => {
      const list = (await customObjects.listNamespacedCustomObject({ group, version, namespace: 'other-ns', plural })) as Json;
      return list.items.length === 3 ? true : undefined;
    }, { timeoutMs: 20_000, message: 'the packages to come back' });
  });
  it('re-reads a catalog whose registry restarted with new content, seen as a new connection in its status', async () => {
    const port = globalRegistry.port;
    const changed = mkdtempSync(join(tmpdir(), 'olm-restarted-catalog-'));
    try {
      cpSync(exampleCatalogDir, changed, { recursive: true });
      rmSync(join(changed, 'acme-monitoring'), { recursive: true });
      const reference = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'olm', name: 'acme-examples' };
      const connected = async (lastConnect: string) => {
        const source = await cluster.client.get<Json>(reference);
        await cluster.client.replaceStatus({ ...source, status: { ...source.status, connectionState: { address: globalRegistry.address, lastObservedState: 'READY', lastConnect } } });
      };
      // Connected, as the catalog operator records it, and read with that status.
      await connected('2026-01-01T00:00:00Z');
      // Let the re-read this status change causes finish against the old registry.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await globalRegistry.stop();
      globalRegistry = await startRegistryServer({ catalog: await loadCatalog(changed), port });
      // What the catalog operator writes when it reconnects: the same address and state, a newer lastConnect.
      await connected('2026-01-01T00:05:00Z');
      await eventually(async () => {
        const list = (await customObjects.listNamespacedCustomObject({ group, version, namespace: 'other-ns', plural })) as Json;
        return list.items.length === 2 ? true : undefined;
      }, { timeoutMs: 15_000, message: 'the removed package to go' });
    } finally {
      rmSync(changed, { recursive: true, force: true });
    }
  });
});

import type { KubeClient } from '@olm/core';
import type { ApiServer } from '@olm/local-apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackageServer, type PackageManifest, type PackageServer } from '../src/index.js';
import { recordingLogger } from '@olm/testing';
import { builtInSourceTypes, createNamespace, eventually, startCluster, type Json } from './helpers.js';

// ConfigMap values are YAML; JSON is YAML too.
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.cm.example.com' },
  spec: { group: 'cm.example.com', names: { kind: 'Widget', plural: 'widgets' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true }] },
};

function csv(name: string, version: string, extra: Record<string, unknown> = {}): Json {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name, annotations: { description: `widgets ${version}` } },
    spec: {
      displayName: 'Widget Operator',
      version,
      provider: { name: 'Widget Corp' },
      installModes: [{ type: 'AllNamespaces', supported: true }],
      install: { strategy: 'deployment', spec: { deployments: [{ name: 'widget-operator', spec: { template: { spec: { containers: [{ name: 'operator', image: `quay.io/widgets/operator:${version}` }] } } } }] } },
      customresourcedefinitions: { owned: [{ name: 'widgets.cm.example.com', version: 'v1', kind: 'Widget', displayName: 'Widget' }] },
      ...extra,
    },
  };
}

function catalogData(csvs: Json[], packages: Array<Record<string, unknown>>): Record<string, string> {
  return { customResourceDefinitions: JSON.stringify([crd]), clusterServiceVersions: JSON.stringify(csvs), packages: JSON.stringify(packages) };
}

const widgetData = catalogData(
  [csv('widget-operator.v0.1.0', '0.1.0'), csv('widget-operator.v0.2.0', '0.2.0', { replaces: 'widget-operator.v0.1.0' })],
  [{ packageName: 'widget-operator', defaultChannel: 'alpha', channels: [{ name: 'alpha', currentCSV: 'widget-operator.v0.2.0' }] }],
);

function configMap(namespace: string, name: string, data: Record<string, string>): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

function configMapCatalogSource(namespace: string, name: string, configMapName: string, sourceType = 'configmap'): Json {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata: { name, namespace },
    spec: { sourceType, configMap: configMapName, displayName: `${name} (ConfigMap)`, publisher: 'Widget Corp' },
  };
}

/**
 * ConfigMap catalogs have no registry to call: the packageserver reads their ConfigMap (upstream's
 * `customResourceDefinitions` / `clusterServiceVersions` / `packages` keys) from the cluster.
 */
describe('ConfigMap CatalogSources', () => {
  let cluster: { server: ApiServer; client: KubeClient; stop(): Promise<void> };
  let packageServer: PackageServer;
  const { logger, warnings } = recordingLogger();

  const names = (namespace: string) => packageServer.store.list(namespace).map((manifest) => `${manifest.status.catalogSource}/${manifest.metadata.name}`);

  beforeAll(async () => {
    cluster = await startCluster();
    await createNamespace(cluster.client, 'team-b');
    await cluster.client.create(configMap('olm', 'widgets', widgetData));
    await cluster.client.create(configMapCatalogSource('olm', 'widgets', 'widgets'));
    // Not there yet: read once it appears (the retry), without any change to the CatalogSource.
    await cluster.client.create(configMapCatalogSource('team-b', 'late', 'late-catalog', 'internal'));
    packageServer = await startPackageServer({ catalogSourceTypes: builtInSourceTypes, client: cluster.client, globalNamespace: 'olm', register: { namespace: 'olm' }, logger });
    await packageServer.waitForSync(30_000);
  }, 60_000);

  afterAll(async () => {
    await packageServer?.stop();
    await cluster?.stop();
  });

  it('lists the packages of a configmap CatalogSource, built as from a registry', async () => {
    expect(names('default')).toEqual(['widgets/widget-operator']);
    const manifest = packageServer.store.get('default', 'widget-operator') as PackageManifest;
    expect(manifest.status).toMatchObject({
      catalogSource: 'widgets',
      catalogSourceNamespace: 'olm',
      catalogSourceDisplayName: 'widgets (ConfigMap)',
      catalogSourcePublisher: 'Widget Corp',
      packageName: 'widget-operator',
      defaultChannel: 'alpha',
      provider: { name: 'Widget Corp' },
    });
    expect(manifest.status.channels).toHaveLength(1);
    const channel = manifest.status.channels[0]!;
    expect(channel.name).toBe('alpha');
    expect(channel.currentCSV).toBe('widget-operator.v0.2.0');
    expect(channel.entries).toEqual([
      { name: 'widget-operator.v0.2.0', version: '0.2.0' },
      { name: 'widget-operator.v0.1.0', version: '0.1.0' },
    ]);
    // The head CSV's description comes from the CSV kept in the ConfigMap.
    expect(channel.currentCSVDesc).toMatchObject({
      displayName: 'Widget Operator',
      version: '0.2.0',
      customresourcedefinitions: { owned: [{ name: 'widgets.cm.example.com', version: 'v1', kind: 'Widget', displayName: 'Widget' }] },
      relatedImages: ['quay.io/widgets/operator:0.2.0'],
    });
    expect(manifest.metadata.labels).toMatchObject({ catalog: 'widgets', 'catalog-namespace': 'olm', provider: 'Widget Corp' });
  });

  it('serves them through the aggregated API as kubectl reads it', async () => {
    const list = (await eventually(
      async () => {
        const answer = (await cluster.client.request({ method: 'GET', path: '/apis/packages.operators.coreos.com/v1/namespaces/default/packagemanifests' })) as Json;
        return answer.items.length > 0 ? answer : undefined;
      },
      { timeoutMs: 15_000, message: 'the packagemanifests through the local API server' },
    )) as Json;
    expect(list.items.map((item: Json) => item.metadata.name)).toContain('widget-operator');
  });

  it('reads an `internal` source whose ConfigMap appears later, and follows ConfigMap changes the catalog operator reports', async () => {
    expect(names('team-b')).toEqual(['widgets/widget-operator']);
    await cluster.client.create(
      configMap('team-b', 'late-catalog', catalogData([csv('gadget-operator.v1.0.0', '1.0.0')], [{ packageName: 'gadget-operator', channels: [{ name: 'stable', currentCSV: 'gadget-operator.v1.0.0' }] }])),
    );
    await eventually(() => (names('team-b').includes('late/gadget-operator') ? true : undefined), { timeoutMs: 15_000, message: 'the late ConfigMap read on retry' });
    expect(packageServer.store.get('team-b', 'gadget-operator')?.status.defaultChannel).toBe('stable');
    // Only team-b's own catalog and the global ones are visible there.
    expect(names('default')).toEqual(['widgets/widget-operator']);

    // A new package in the ConfigMap; the catalog operator records the ConfigMap's new resourceVersion.
    const updated = await cluster.client.apply(
      configMap('olm', 'widgets', catalogData(
        [csv('widget-operator.v0.1.0', '0.1.0'), csv('widget-operator.v0.2.0', '0.2.0', { replaces: 'widget-operator.v0.1.0' }), csv('sprocket-operator.v0.0.1', '0.0.1')],
        [
          { packageName: 'widget-operator', defaultChannel: 'alpha', channels: [{ name: 'alpha', currentCSV: 'widget-operator.v0.2.0' }] },
          { packageName: 'sprocket-operator', channels: [{ name: 'beta', currentCSV: 'sprocket-operator.v0.0.1' }] },
        ],
      )),
      { fieldManager: 'test', force: true },
    );
    await cluster.client.patch(
      { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', namespace: 'olm', name: 'widgets' },
      { status: { configMapReference: { name: 'widgets', namespace: 'olm', resourceVersion: updated.metadata?.resourceVersion } } },
      { subresource: 'status' },
    );
    await eventually(() => (names('default').includes('widgets/sprocket-operator') ? true : undefined), { timeoutMs: 15_000, message: 'the changed ConfigMap read again' });
  });

  it('serves no packages of a CatalogSource whose ConfigMap is not a catalog, says why, and keeps serving the others', async () => {
    await cluster.client.create(configMap('olm', 'broken', { packages: '[]' }));
    await cluster.client.create(configMapCatalogSource('olm', 'broken', 'broken'));
    const warning = await eventually(() => warnings.find((each) => each.fields?.['catalogSource'] === 'olm/broken'), { timeoutMs: 15_000, message: 'a warning about olm/broken' });
    expect(warning.message).toBe('cannot read the catalog; its packages are not served until it can be read');
    expect(warning.fields).toMatchObject({ from: 'ConfigMap olm/broken' });
    expect(String(warning.fields?.['error'])).toContain("ConfigMap olm/broken: couldn't find expected key customResourceDefinitions in configmap");
    expect(names('default').filter((name) => name.startsWith('broken/'))).toEqual([]);
    expect(names('default')).toContain('widgets/widget-operator');
  });
});

import { Kinds, SourceDirectoryAnnotation } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { loadPlugins } from '@olm/olm';
import { exampleCatalogDirectory, installOlmResources, startControllers, type RunningControllers } from '@olm/olm/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v1Distribution } from '../src/distribution.js';

type Json = CachedObject & Record<string, any>;
const namespace = 'acme-system';

/** An account that may install acme-database: the bundle's objects, and escalate/bind for its RBAC. */
const installer: Json[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace } },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'acme-installer' },
    rules: [
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'escalate', 'bind'] },
      { apiGroups: [''], resources: ['serviceaccounts', 'services', 'configmaps', 'secrets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    ],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'acme-installer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'acme-installer' },
    subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace }],
  },
];

describe('olm-v1: only OLM v1 controllers, composed from apps/olm\'s list', () => {
  it('boots the runtime, ClusterCatalog and ClusterExtension controllers and none of v0\'s', async () => {
    const ids = (await loadPlugins(v1Distribution.distributionPlugins({ namespace: 'olm', leaderElection: false }))).map((plugin) => plugin.id);
    expect(ids).toEqual(expect.arrayContaining(['controller-runtime', 'controller-cluster-catalog', 'controller-cluster-extension']));
    for (const v0 of ['controller-csv', 'controller-catalog', 'controller-operator-groups', 'bundle-puller', 'resolver']) expect(ids).not.toContain(v0);
  });
});

describe('olm-v1 against the local API server', { timeout: 120_000 }, () => {
  let server: ApiServer;
  let client: KubeClient;
  let controllers: RunningControllers;

  const until = async <T>(what: string, read: () => Promise<T | undefined>): Promise<T> => {
    let value: T | undefined;
    await expect.poll(async () => (value = await read()), { timeout: 60_000, interval: 200, message: what }).toBeDefined();
    return value!;
  };

  beforeAll(async () => {
    server = await startApiServer({ port: 0 });
    client = new KubeClient({ kubeconfig: server.kubeconfig });
    await installOlmResources(client, { namespace: 'olm' });
    controllers = await startControllers({
      kubeconfig: server.kubeconfig,
      plugins: v1Distribution.distributionPlugins({
        namespace: 'olm',
        leaderElection: false,
        clusterCatalog: { server: { host: '127.0.0.1', port: 0 }, directories: { 'acme-examples': exampleCatalogDirectory } },
      }),
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      logLevel: 'silent',
    });
    for (const object of installer) await client.create(object);
  });
  afterAll(async () => {
    await controllers?.stop();
    client?.close();
    await server?.stop();
  });

  it('serves a ClusterCatalog and installs a ClusterExtension from it, while a Subscription is left alone', async () => {
    await client.create({
      ...Kinds.clusterCatalog,
      metadata: { name: 'acme-examples', annotations: { [SourceDirectoryAnnotation]: 'acme-examples' } },
      spec: { source: { type: 'Image', image: { ref: 'registry.example.com/acme/acme-examples-catalog:latest' } } },
    } as Json);
    await client.create({
      ...Kinds.clusterExtension,
      metadata: { name: 'acme-database' },
      spec: { namespace, serviceAccount: { name: 'installer' }, source: { sourceType: 'Catalog', catalog: { packageName: 'acme-database', version: '1.0.0' } } },
    } as Json);
    await client.create({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { name: 'acme-backup', namespace },
      spec: { name: 'acme-backup', channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm' },
    } as Json);

    const extension = await until('acme-database 1.0.0 installed', async () => {
      const live = await client.find<Json>({ ...Kinds.clusterExtension, name: 'acme-database' });
      return live?.status?.install?.bundle?.version === '1.0.0' ? live : undefined;
    });
    expect(extension.status.conditions.find((condition: { type: string }) => condition.type === 'Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(await client.find({ ...Kinds.customResourceDefinition, name: 'databases.acme.example.com' })).toBeDefined();
    // No v0 controller runs: the Subscription the extension was installed beside never gets a status.
    const subscription = await client.find<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', namespace, name: 'acme-backup' });
    expect(subscription?.status).toBeUndefined();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kinds, SourceDirectoryAnnotation, type ClusterExtension, type ClusterExtensionSpec, type Condition } from '@olm/api';
import { createClusterCatalogController } from '@olm/controller-cluster-catalog';
import { createRevisionApplier } from '@olm/revision-applier';
import { eventually, startReconcilers, startTestCluster, type TestCluster, type TestObject } from '@olm/testing';
import { createClusterExtensionController } from '../src/index.js';

export const exampleCatalogDirectory = fileURLToPath(new URL('../../../examples/catalog/', import.meta.url));
const rbac = 'rbac.authorization.k8s.io';

/** A ClusterExtension as read back. */
export type StoredClusterExtension = TestObject & ClusterExtension & { metadata: ClusterExtension['metadata'] & { name: string } };

/** A local API server with OLM v1 on it: the ClusterCatalog controller serving the example catalog as `acme-examples` over HTTPS, and the ClusterExtension controller with the real revision applier. */
export interface V1Cluster {
  readonly cluster: TestCluster;
  get(name: string): Promise<StoredClusterExtension | undefined>;
  /** Waits until `check` holds for the ClusterExtension (30 s), returning it. */
  until(name: string, check: (extension: StoredClusterExtension) => boolean, what: string): Promise<StoredClusterExtension>;
  /** Waits until the ClusterExtension is gone (its finalizer done). */
  gone(name: string): Promise<boolean>;
  stop(): Promise<void>;
}

export async function startV1Cluster(): Promise<V1Cluster> {
  const scratch = mkdtempSync(join(tmpdir(), 'cluster-extension-test-'));
  const cluster = await startTestCluster({ namespaces: ['acme-system', 'olmv1-system'] });
  const catalogs = createClusterCatalogController({ client: cluster.client, cacheDirectory: join(scratch, 'catalogs'), directories: { examples: exampleCatalogDirectory } });
  await catalogs.start();
  const applier = createRevisionApplier({ client: cluster.client, fieldManager: 'olm-v1' });
  const extensions = createClusterExtensionController({ client: cluster.client, applier, catalogCa: () => catalogs.server?.certificate });
  const running = await startReconcilers({
    kubeconfig: cluster.server.kubeconfig,
    client: cluster.client,
    controller: () => ({ reconcilers: [...catalogs.reconcilers, ...extensions.reconcilers], close: () => catalogs.stop() }),
  });
  await cluster.client.create({
    ...Kinds.clusterCatalog,
    metadata: { name: 'acme-examples', annotations: { [SourceDirectoryAnnotation]: 'examples' } },
    spec: { source: { type: 'Image', image: { ref: 'registry.example.com/acme/catalog:latest' } } },
  });
  await installerAccount(cluster);
  const get = (name: string) => cluster.client.find<StoredClusterExtension>({ ...Kinds.clusterExtension, name });
  return {
    cluster,
    get,
    until: (name, check, what) =>
      eventually(
        async () => {
          const extension = await get(name);
          if (!extension || !check(extension)) throw new Error(`${name}: ${what} not yet: ${JSON.stringify(extension?.status)}`);
          return extension;
        },
        { timeoutMs: 20_000 },
      ),
    gone: (name) =>
      eventually(
        async () => {
          const left = await get(name);
          if (left) throw new Error(`${name} still there: ${JSON.stringify(left.metadata.finalizers)}`);
          return true;
        },
        { timeoutMs: 20_000 },
      ),
    stop: async () => {
      await running.stop();
      await cluster.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** ServiceAccount `installer` in acme-system, with what installing the example bundles takes (escalate and bind included); `nobody` with nothing. */
async function installerAccount(cluster: TestCluster): Promise<void> {
  const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
  for (const name of ['installer', 'nobody']) await cluster.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'acme-system' } });
  await cluster.client.create({
    apiVersion: `${rbac}/v1`,
    kind: 'ClusterRole',
    metadata: { name: 'extension-installer' },
    rules: [
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs },
      { apiGroups: [rbac], resources: ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'], verbs: [...verbs, 'escalate', 'bind'] },
      { apiGroups: [''], resources: ['serviceaccounts', 'services', 'configmaps', 'secrets'], verbs },
      { apiGroups: ['apps'], resources: ['deployments'], verbs },
    ],
  });
  await cluster.client.create({
    apiVersion: `${rbac}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'extension-installer' },
    roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'extension-installer' },
    subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: 'acme-system' }],
  });
}

/** A ClusterExtension of the example catalog's `packageName`, installed into acme-system as `serviceAccount`. */
export function clusterExtension(name: string, catalog: NonNullable<ClusterExtensionSpec['source']['catalog']>, extra: Partial<ClusterExtensionSpec> = {}): TestObject {
  return {
    ...Kinds.clusterExtension,
    metadata: { name },
    spec: { namespace: 'acme-system', serviceAccount: { name: 'installer' }, source: { sourceType: 'Catalog', catalog }, ...extra },
  };
}

export const conditionOf = (extension: Pick<ClusterExtension, 'status'> | undefined, type: string): Pick<Condition, 'status' | 'reason' | 'message'> | undefined => {
  const condition = extension?.status?.conditions?.find((item) => item.type === type);
  return condition ? { status: condition.status, reason: condition.reason, message: condition.message } : undefined;
};

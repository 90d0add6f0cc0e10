// ClusterExtension created -> Installed on the local API server: the ClusterCatalog controller serves the
// example catalog over HTTPS, the ClusterExtension controller resolves, renders, preflights and applies
// acme-database as its ServiceAccount with the real revision applier. The first install reads the catalog
// (cold); later ones use the cached content (warm). Each round deletes the extension and waits until it
// is gone. Prints one JSON line per case. Run `pnpm build` first: this imports the built packages.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crds, Kinds, SourceDirectoryAnnotation } from '@olm/api';
import { createClusterCatalogController } from '@olm/controller-cluster-catalog';
import { createManager, KubeClient } from '@olm/controller-runtime';
import { startApiServer } from '@olm/local-apiserver';
import { createRevisionApplier } from '@olm/revision-applier';
import { createClusterExtensionController } from '../dist/index.js';

const rounds = Number(process.env.ROUNDS ?? 8);
const exampleCatalog = fileURLToPath(new URL('../../../examples/catalog/', import.meta.url));
const rbac = 'rbac.authorization.k8s.io';
const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

async function until(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const scratch = await mkdtemp(join(tmpdir(), 'cluster-extension-bench-'));
const server = await startApiServer({ port: 0 });
const client = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 10_000 });
for (const crd of crds) await client.create({ ...crd, metadata: { ...crd.metadata } });
await until('CRDs served', async () => client.resourceFor(Kinds.clusterExtension).then(() => true, () => false));
for (const name of ['acme-system', 'olmv1-system']) await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: 'acme-system' } });
await client.create({
  apiVersion: `${rbac}/v1`,
  kind: 'ClusterRole',
  metadata: { name: 'installer' },
  rules: [
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs },
    { apiGroups: [rbac], resources: ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'], verbs: [...verbs, 'escalate', 'bind'] },
    { apiGroups: [''], resources: ['serviceaccounts', 'services', 'configmaps', 'secrets'], verbs },
    { apiGroups: ['apps'], resources: ['deployments'], verbs },
  ],
});
await client.create({
  apiVersion: `${rbac}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name: 'installer' },
  roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'installer' },
  subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: 'acme-system' }],
});

const catalogs = createClusterCatalogController({ client, cacheDirectory: join(scratch, 'catalogs'), directories: { examples: exampleCatalog } });
await catalogs.start();
const extensions = createClusterExtensionController({ client, applier: createRevisionApplier({ client, fieldManager: 'olm-v1' }), catalogCa: () => catalogs.server?.certificate });
const manager = createManager({ client, gracefulShutdownTimeoutMs: 2_000 });
for (const reconciler of [...catalogs.reconcilers, ...extensions.reconcilers]) manager.add(reconciler);
await manager.start();
await client.create({
  ...Kinds.clusterCatalog,
  metadata: { name: 'acme-examples', annotations: { [SourceDirectoryAnnotation]: 'examples' } },
  spec: { source: { type: 'Image', image: { ref: 'registry.example.com/acme/catalog:latest' } } },
});
await until('catalog served', async () => (await client.get({ ...Kinds.clusterCatalog, name: 'acme-examples' })).status?.urls?.base);

const installedMs = [];
for (let round = 0; round < rounds; round += 1) {
  const name = `acme-database-${round}`;
  const started = performance.now();
  await client.create({
    ...Kinds.clusterExtension,
    metadata: { name },
    spec: { namespace: 'acme-system', serviceAccount: { name: 'installer' }, source: { sourceType: 'Catalog', catalog: { packageName: 'acme-database', version: '1.2.0' } } },
  });
  await until(`${name} installed`, async () => {
    const object = await client.get({ ...Kinds.clusterExtension, name });
    return object.status?.conditions?.some((condition) => condition.type === 'Installed' && condition.status === 'True');
  });
  installedMs.push(performance.now() - started);
  await client.delete({ ...Kinds.clusterExtension, name });
  await until(`${name} gone`, async () => !(await client.find({ ...Kinds.clusterExtension, name })));
}

const warm = installedMs.slice(1).sort((a, b) => a - b);
const round1 = (value) => Math.round(value * 10) / 10;
console.log(JSON.stringify({ case: 'cluster-extension-installed-cold', ms: round1(installedMs[0]) }));
console.log(JSON.stringify({ case: 'cluster-extension-installed-warm', rounds: warm.length, medianMs: round1(warm[Math.floor(warm.length / 2)]), maxMs: round1(warm.at(-1)) }));

await manager.stop();
await catalogs.stop();
client.close();
await server.stop();
await rm(scratch, { recursive: true, force: true });

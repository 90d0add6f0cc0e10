// Benchmarks for @olm/revision-applier on the embedded API server. Prints one JSON line per case.
// Run after a build: `pnpm bench` (imports ../dist/index.js). BENCH_OBJECTS sets the bundle's size.
import { KubeClient } from '@olm/controller-runtime';
import { startApiServer } from '@olm/local-apiserver';
import { createRevisionApplier } from '../dist/index.js';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 500);
const print = (line) => console.log(JSON.stringify(line));
const labels = { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'bench' };

/** A rendered bundle of OBJECTS ConfigMaps and one ClusterRole with its binding, as bundle-render shapes it. */
function rendered(version) {
  const configMaps = Array.from({ length: OBJECTS }, (_, index) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `config-${index}`, namespace: 'bench-system', labels },
    data: { version, payload: 'x'.repeat(256) },
  }));
  const rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }];
  return {
    bundle: `bench.v${version}`,
    csvName: `bench.v${version}`,
    targetNamespaces: [''],
    phases: [
      { name: 'crds', objects: [] },
      {
        name: 'rbac',
        objects: [
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `bench-${version}`, labels }, rules },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name: `bench-${version}`, labels },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `bench-${version}` },
            subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: 'bench-system' }],
          },
        ],
      },
      { name: 'workloads', objects: configMaps },
    ],
  };
}

let requests = [];
const server = await startApiServer({ port: 0, onRequest: (request) => requests.push(request) });
const client = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 30_000 });
try {
  for (const name of ['bench-system', 'olmv1-system']) await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: 'bench-system' } });
  const applier = createRevisionApplier({ client, fieldManager: 'olm-v1' });
  const input = (version) => ({ owner: { name: 'bench', uid: 'bench-uid' }, serviceAccount: { namespace: 'bench-system', name: 'installer' }, bundle: { name: `bench.v${version}`, version }, rendered: rendered(version) });

  const measure = async (name, run) => {
    requests = [];
    const started = performance.now();
    const result = await run();
    const ms = performance.now() - started;
    const writes = requests.filter((request) => !['get', 'list', 'watch'].includes(request.verb)).length;
    print({ case: name, objects: OBJECTS + 2, ms: Math.round(ms), requests: requests.length, writes, ...result });
  };
  await measure('preflight, account without rights', async () => ({ missing: (await applier.preflight(input('1.0.0'))).length }));
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'installer-admin' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: 'bench-system' }],
  });
  await measure('preflight, cluster-admin account', async () => ({ missing: (await applier.preflight(input('1.0.0'))).length }));
  await measure('apply revision 1', async () => ({ complete: (await applier.apply(input('1.0.0'))).complete }));
  await measure('apply revision 1 again (no change)', async () => ({ complete: (await applier.apply(input('1.0.0'))).complete }));
  await measure('apply revision 2 (every object changed, one role pruned)', async () => ({ complete: (await applier.apply(input('2.0.0'))).complete }));
  await measure('uninstall', async () => ({ complete: (await applier.uninstall({ name: 'bench', uid: 'bench-uid' })).complete }));
} finally {
  client.close();
  await server.stop();
}

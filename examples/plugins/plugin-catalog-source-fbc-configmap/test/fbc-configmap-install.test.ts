import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boot, kubeClient, provision, type CachedObject, type Kernel, type KubeClient } from '@olm/core';
import { createControllerCatalogPlugin } from '@olm/controller-catalog';
import { createControllerRuntimePlugin } from '@olm/controller-runtime';
import { celPlugin } from '@olm/plugin-cel';
import { rbacPlugin } from '@olm/plugin-rbac';
import { satLogicSolverPlugin } from '@olm/plugin-sat-logic-solver';
import { resolverPlugin } from '@olm/resolver';
import { createOperatorNamespace, eventually, startTestCluster, subscription, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFbcConfigMapPlugin } from '../src/index.js';

// A distribution whose only catalog source type is this package's: the registry plugin, which defines
// grpc, configmap, internal and fbc-directory, is not booted. The catalog operator reaches the type through
// the catalogSourceTypes point alone: its spec check, its workload (the ConfigMap, status.configMapReference,
// ConfigMapError) and its connections.
const exampleCatalog = fileURLToPath(new URL('../../../catalog', import.meta.url));
const catalogSourceKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' } as const;
const installPlanKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan' } as const;

type Json = CachedObject & { spec?: Record<string, any>; status?: Record<string, any> };

let cluster: TestCluster;
let client: KubeClient;
let kernel: Kernel;

beforeAll(async () => {
  cluster = await startTestCluster({ requestTimeoutMs: 10_000, namespaces: ['olm'] });
  client = cluster.client;
  kernel = await boot({
    plugins: [
      createControllerRuntimePlugin({ leaderElection: false }),
      createControllerCatalogPlugin({ installingRequeueMs: 200, catalogHealthCheckIntervalMs: 500, catalogUnhealthyRetryMs: 200 }),
      createFbcConfigMapPlugin(),
      resolverPlugin,
      satLogicSolverPlugin,
      celPlugin,
      rbacPlugin,
    ],
    provide: [provision(kubeClient, client)],
  });
});
afterAll(async () => {
  await kernel?.stop();
  await cluster?.stop();
});

/** The example catalog as a ConfigMap: one FBC file per package. */
async function createCatalogConfigMap(namespace: string, name: string): Promise<Json> {
  const data = Object.fromEntries(readdirSync(exampleCatalog).map((pkg) => [`${pkg}.yaml`, readFileSync(join(exampleCatalog, pkg, 'catalog.yaml'), 'utf8')]));
  return client.create<Json>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data });
}

async function createCatalogSource(namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
  await client.create({ ...catalogSourceKind, metadata: { namespace, name }, spec: { sourceType: 'fbc-configmap', ...spec } });
}

const statusOf = async (namespace: string, name: string) => (await client.get<Json>({ ...catalogSourceKind, namespace, name })).status ?? {};

describe('a distribution whose only catalog source type comes from a plugin outside the built-in packages', () => {
  it('boots without the registry plugin', () => {
    expect(kernel.plugins.map((plugin) => plugin.id)).not.toContain('registry');
  });

  it('installs a Subscription from a file-based catalog kept in a ConfigMap, with the status its workload sets', async () => {
    await createOperatorNamespace(client, 'fbc-install');
    const configMap = await createCatalogConfigMap('fbc-install', 'acme-catalog');
    await createCatalogSource('fbc-install', 'acme', { configMap: 'acme-catalog' });
    await client.create(subscription('fbc-install', 'acme-backup', { source: 'acme', sourceNamespace: 'fbc-install' }));
    const plan = await eventually(
      async () => {
        const plans = (await client.list<Json>(installPlanKind, { namespace: 'fbc-install' })).items;
        return plans[0]?.status?.phase === 'Complete' && plans[0];
      },
      { timeoutMs: 30_000, message: 'the InstallPlan in fbc-install Complete' },
    );
    expect([...plan.spec!['clusterServiceVersionNames']].sort()).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);
    const status = await statusOf('fbc-install', 'acme');
    expect(status).toMatchObject({
      connectionState: { lastObservedState: 'READY' },
      configMapReference: { name: 'acme-catalog', namespace: 'fbc-install', uid: configMap.metadata?.uid, resourceVersion: configMap.metadata?.resourceVersion },
    });
    expect(status['reason']).toBeUndefined();
  });

  it('refuses a spec its type refuses (SpecInvalidError, in the type\'s words)', async () => {
    await createCatalogSource('olm', 'no-configmap', {});
    const status = await eventually(async () => {
      const current = await statusOf('olm', 'no-configmap');
      return current['reason'] !== undefined && current;
    });
    expect(status).toMatchObject({
      reason: 'SpecInvalidError',
      message: 'spec.configMap unset: name the ConfigMap that holds the file-based catalog, for sourcetype: fbc-configmap',
    });
  });

  it('reports what its workload finds wrong (a missing ConfigMap) and serves nothing', async () => {
    await createCatalogSource('olm', 'missing-configmap', { configMap: 'nowhere' });
    const status = await eventually(async () => {
      const current = await statusOf('olm', 'missing-configmap');
      return current['reason'] !== undefined && current;
    });
    expect(status).toMatchObject({
      reason: 'ConfigMapError',
      message: 'ConfigMap olm/nowhere (spec.configMap), which holds the file-based catalog, does not exist; create it, or name an existing one',
      connectionState: { lastObservedState: 'TRANSIENT_FAILURE' },
    });
  });
});

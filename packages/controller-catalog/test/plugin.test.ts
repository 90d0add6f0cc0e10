import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, type Kernel, kubeClient, type KubeClient, type LogFields, logger, type Logger, metrics, provision } from '@olm/core';
import { createControllerRuntimePlugin } from '@olm/controller-runtime';
import { celPlugin } from '@olm/plugin-cel';
import { rbacPlugin } from '@olm/plugin-rbac';
import { satLogicSolverPlugin } from '@olm/plugin-sat-logic-solver';
import { registryPlugin, type RegistryServer } from '@olm/registry';
import { resolverPlugin } from '@olm/resolver';
import { Registry } from 'prom-client';
import { createControllerCatalogPlugin } from '../src/index.js';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { createOperatorNamespace, eventually, get, grpcCatalogSource, startCluster, startRegistry, subscription } from './helpers.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let registry: RegistryServer;
let kernel: Kernel;
const metricsRegistry = new Registry();
/** What the plugins log through the kernel's logger. */
const logged: Array<{ level: string; message: string; fields: LogFields }> = [];
function recordingLogger(bound: LogFields = {}): Logger {
  const write = (level: string) => (message: string, fields?: LogFields) => void logged.push({ level, message, fields: { ...bound, ...fields } });
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), child: (fields) => recordingLogger({ ...bound, ...fields }) };
}

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  registry = await startRegistry();
  await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
  kernel = await boot({
    plugins: [
      createControllerRuntimePlugin({ leaderElection: false }),
      createControllerCatalogPlugin({ installingRequeueMs: 200, catalogHealthCheckIntervalMs: 500, catalogUnhealthyRetryMs: 200 }),
      registryPlugin,
      resolverPlugin,
      satLogicSolverPlugin,
      celPlugin,
      rbacPlugin,
    ],
    provide: [provision(kubeClient, client), provision(metrics, metricsRegistry), provision(logger, recordingLogger())],
  });
});
afterAll(async () => {
  await kernel?.stop();
  await registry?.stop();
  await cluster?.stop();
});

describe('controllerCatalogPlugin booted with the other plugins', () => {
  it('installs a subscription through the kernel-provided resolver, RBAC generator and source types, and exports upstream metrics', async () => {
    await createOperatorNamespace(client, 'kernel');
    await client.create(subscription('kernel', 'acme-monitoring', {}));
    const plan = await eventually(async () => {
      const plans = (await client.list<AnyObject>(Kinds.installPlan, { namespace: 'kernel' })).items;
      return (plans[0]?.status as { phase?: string } | undefined)?.phase === 'Complete' && plans[0];
    }, { timeoutMs: 20_000 });
    // acme-monitoring needs acme-database in >=1.1.0 <2.0.0 that passes a CEL constraint
    expect([...(plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames].sort()).toEqual(['acme-database.v1.2.0', 'acme-monitoring.v0.1.0']);

    const text = await metricsRegistry.metrics();
    expect(text).toContain('catalogsource_ready{namespace="olm",name="acme-examples"} 1');
    expect(text).toMatch(/catalog_source_snapshots_total\{namespace="olm",name="acme-examples"\} [1-9]/);
    expect(text).toMatch(/olm_resolution_duration_seconds_count\{outcome="succeeded"\} [1-9]/);
    expect(text).toMatch(/olm_resolution_duration_seconds\{quantile="0.95",outcome="succeeded"\} /);
    expect(text).toMatch(/catalog_source_count [1-9]/);
    expect(text).toMatch(/install_plan_count [1-9]/);
    expect(text).toMatch(/subscription_count [1-9]/);
    // one series per Subscription: the one of its installed CSV, once installed
    const syncSeries = async () => (await metricsRegistry.metrics()).split('\n').filter((line) => line.startsWith('subscription_sync_total{name="acme-monitoring"'));
    const installed = await eventually(async () => {
      const lines = await syncSeries();
      return lines.length === 1 && lines[0]!.includes('installed="acme-monitoring.v0.1.0"') && lines;
    });
    expect(installed[0]).toMatch(/^subscription_sync_total\{name="acme-monitoring",installed="acme-monitoring.v0.1.0",channel="stable",package="acme-monitoring",approval="Automatic"\} [1-9]/);
    // a deleted Subscription's series goes with it
    await client.delete({ ...Kinds.subscription, namespace: 'kernel', name: 'acme-monitoring' });
    await eventually(async () => (await syncSeries()).length === 0, { message: 'series of the deleted Subscription removed' });
  });

  it('reports a missing ConfigMap as ConfigMapError, and drops the series of a deleted catalog', async () => {
    await createOperatorNamespace(client, 'cm-missing');
    await client.create({ ...Kinds.catalogSource, metadata: { name: 'nowhere', namespace: 'cm-missing' }, spec: { sourceType: 'configmap', configMap: 'absent' } });
    const source = await eventually(async () => {
      const found = await get(client, Kinds.catalogSource, 'cm-missing', 'nowhere');
      return (found?.status as { reason?: string } | undefined)?.reason ? found : undefined;
    });
    expect(source.status).toMatchObject({
      reason: 'ConfigMapError',
      message: 'failed to get catalog config map absent: configmaps "absent" not found',
      connectionState: { lastObservedState: 'TRANSIENT_FAILURE' },
    });
    const text = await metricsRegistry.metrics();
    expect(text).toContain('catalogsource_ready{namespace="cm-missing",name="nowhere"} 0');
    // registered at 0 before any snapshot, as upstream
    expect(text).toContain('catalog_source_snapshots_total{namespace="cm-missing",name="nowhere"} 0');
    await client.delete({ ...Kinds.catalogSource, namespace: 'cm-missing', name: 'nowhere' });
    await eventually(async () => !(await metricsRegistry.metrics()).includes('name="nowhere"'), { message: 'series of the deleted catalog removed' });
  });

  it("logs through the kernel's logger: a catalog that cannot be read is left out of a namespace's resolution", async () => {
    await createOperatorNamespace(client, 'logs');
    await client.create({ ...Kinds.catalogSource, metadata: { name: 'unreadable', namespace: 'logs' }, spec: { sourceType: 'configmap', configMap: 'absent' } });
    await client.create(subscription('logs', 'acme-monitoring', {}));
    const warning = await eventually(() => logged.find((line) => line.message === 'catalog left out of resolution' && line.fields['catalogSource'] === 'logs/unreadable'), {
      message: 'the warning in the kernel logger',
    });
    expect(warning.level).toBe('warn');
    expect(String(warning.fields['error'])).toContain('logs/unreadable');
    // and the resolution went on without it
    await eventually(async () => (await client.list<AnyObject>(Kinds.installPlan, { namespace: 'logs' })).items.length > 0, { message: 'a plan from the readable catalog' });
  });

  it('reads configmap catalogs from the cluster', async () => {
    const csv = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'cm-operator.v1.0.0' },
      spec: { version: '1.0.0', displayName: 'CM operator', install: { strategy: 'deployment', spec: { deployments: [] } } },
    };
    await createOperatorNamespace(client, 'cm');
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm-catalog', namespace: 'cm' },
      data: {
        customResourceDefinitions: '[]',
        clusterServiceVersions: JSON.stringify([csv]),
        packages: JSON.stringify([{ packageName: 'cm-operator', channels: [{ name: 'stable', currentCSV: 'cm-operator.v1.0.0' }], defaultChannel: 'stable' }]),
      },
    });
    await client.create({ ...Kinds.catalogSource, metadata: { name: 'cm-catalog', namespace: 'cm' }, spec: { sourceType: 'configmap', configMap: 'cm-catalog' } });
    const source = await eventually(async () => {
      const found = await get(client, Kinds.catalogSource, 'cm', 'cm-catalog');
      return (found?.status as { connectionState?: { lastObservedState?: string } } | undefined)?.connectionState?.lastObservedState === 'READY' && found;
    });
    expect(source.status).toMatchObject({ configMapReference: { name: 'cm-catalog', namespace: 'cm' } });
    await client.create(subscription('cm', 'cm-operator', { source: 'cm-catalog', sourceNamespace: 'cm' }));
    const plan = await eventually(async () => (await client.list<AnyObject>(Kinds.installPlan, { namespace: 'cm' })).items[0]);
    expect((plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames).toEqual(['cm-operator.v1.0.0']);
  });
});

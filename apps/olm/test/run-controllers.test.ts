import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runControllers, runPlugins } from '../src/commands/run.js';
import { olmDistribution } from '../src/distribution.js';
import { startOlmCluster, type OlmCluster } from './local-olm-cluster.js';
import { exampleBlobs } from './e2e/catalogs.js';
import { runCliCaptured, testRunOptions } from './run-cli.js';

type Json = CachedObject & Record<string, any> & { metadata: Record<string, any> };

/** The manifests a bundle of the example catalog carries (its CSV and CRDs). */
function bundleObjects(pkg: string, bundle: string): Json[] {
  const blob = exampleBlobs(pkg).find((each) => each.schema === 'olm.bundle' && each.name === bundle)!;
  return (blob.properties as Array<{ type: string; value: { data: string } }>)
    .filter((property) => property.type === 'olm.bundle.object')
    .map((property) => JSON.parse(Buffer.from(property.value.data, 'base64').toString('utf8')) as Json);
}

/** The ServiceAccounts, Roles and bindings a CSV's permissions ask for (an InstallPlan's steps). */
function permissionsOf(csv: Json, namespace: string): Json[] {
  const spec = csv.spec.install.spec as { permissions?: Array<{ serviceAccountName: string; rules: unknown[] }>; clusterPermissions?: Array<{ serviceAccountName: string; rules: unknown[] }> };
  const objects: Json[] = [];
  const accounts = new Set([...(spec.permissions ?? []), ...(spec.clusterPermissions ?? [])].map((entry) => entry.serviceAccountName));
  for (const name of accounts) objects.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } } as Json);
  for (const [scope, entries] of [['Role', spec.permissions ?? []], ['ClusterRole', spec.clusterPermissions ?? []]] as const) {
    entries.forEach((entry, index) => {
      const name = `${csv.metadata.name}-${namespace}-${index}`;
      const metadata = scope === 'Role' ? { name, namespace } : { name };
      objects.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: scope, metadata, rules: entry.rules } as Json);
      objects.push({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: `${scope}Binding`,
        metadata,
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: scope, name },
        subjects: [{ kind: 'ServiceAccount', name: entry.serviceAccountName, namespace }],
      } as Json);
    });
  }
  return objects;
}

describe('olm run --controllers', () => {
  let cluster: OlmCluster;
  let client: KubeClient;
  let kubeconfig: string;

  const run = (controllers: string[], out: (text: string) => void) =>
    runControllers(
      testRunOptions({ kubeconfig, controllers, leaderElection: true }),
      out,
    );

  const find = (apiVersion: string, kind: string, namespace: string, name: string) => client.find<Json>({ apiVersion, kind, namespace, name });
  const csvPhase = async (namespace: string, name: string) =>
    (await find('operators.coreos.com/v1alpha1', 'ClusterServiceVersion', namespace, name))?.status?.phase as string | undefined;
  const installPlans = async (namespace: string) =>
    (await client.list<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan' }, { namespace })).items;

  beforeAll(async () => {
    cluster = await startOlmCluster({ operatorNamespaces: ['direct', 'subscribed'] });
    ({ client, kubeconfigPath: kubeconfig } = cluster);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('keeps only the named controller plugins, and elects a leader per set', () => {
    const ids = (controllers: string[]) =>
      runPlugins(olmDistribution, { namespace: 'olm', watchNamespaces: [], leaderElection: true, controllers }).map((plugin) => plugin.id);
    expect(ids(['csv'])).toContain('controller-csv');
    expect(ids(['csv'])).not.toContain('controller-catalog');
    // Upstream's OLM operator also runs the OperatorGroup, OperatorCondition and Operator controllers.
    expect(ids(['csv'])).toEqual(expect.arrayContaining(['controller-operator-groups', 'controller-operator-conditions', 'controller-operators']));
    expect(ids(['catalog'])).not.toContain('controller-operator-groups');
    expect(ids(['catalog'])).not.toContain('controller-csv');
    expect(ids(['catalog'])).not.toContain('controller-operators');
    expect(ids(['catalog'])).toContain('controller-runtime');
    expect(ids(['catalog'])).toContain('bundle-puller');
    expect(ids([])).toEqual(expect.arrayContaining(['controller-csv', 'controller-catalog']));
    expect(ids(['csv', 'catalog']).sort()).toEqual(ids([]).sort());
  });

  it('refuses an unknown controller name with the ones it knows, exit 2', async () => {
    const result = await runCliCaptured(['run', '--kubeconfig', kubeconfig, '--controllers', 'csv,olm-operator', '--exit-after-start']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--controllers: unknown controller "olm-operator"; this distribution has "csv", "catalog"');
  });

  it('runs the OLM Operator and the Catalog Operator as two processes would, each doing only its part', async () => {
    let csvUrl: string | undefined;
    let catalogUrl: string | undefined;
    const outputs: string[] = [];
    const csvOnly = run(['csv'], (text) => {
      outputs.push(text);
      csvUrl ??= /on (http:\/\/\S+)/.exec(text)?.[1];
    });
    let catalogOnly: Promise<void> | undefined;
    try {
      // A Subscription, and a CSV applied by hand with its CRD and RBAC (what an InstallPlan would create).
      await client.create({
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'Subscription',
        metadata: { name: 'acme-database', namespace: 'subscribed' },
        spec: { name: 'acme-database', channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm' },
      } as Json);
      for (const object of bundleObjects('acme-database', 'acme-database.v1.0.0')) {
        if (object.kind === 'ClusterServiceVersion') {
          object.metadata.namespace = 'direct';
          for (const rbac of permissionsOf(object, 'direct')) await client.create(rbac);
        }
        await client.create(object);
      }

      // Only the CSV controller runs: the hand-made CSV succeeds, the Subscription is not resolved.
      await expect.poll(() => csvPhase('direct', 'acme-database.v1.0.0'), { timeout: 60_000, interval: 200 }).toBe('Succeeded');
      expect(outputs.join('')).toContain('olm running controllers csv:');
      expect(await installPlans('subscribed')).toEqual([]);
      expect((await find('operators.coreos.com/v1alpha1', 'Subscription', 'subscribed', 'acme-database'))?.status).toBeUndefined();
      expect(await find('coordination.k8s.io/v1', 'Lease', 'olm', 'olm-controllers-csv')).toBeDefined();
      const csvMetrics = await (await fetch(`${csvUrl}/metrics`)).text();
      expect(csvMetrics).toMatch(/controller="csv"/);
      expect(csvMetrics).toMatch(/controller="operator-condition-generator"/);
      expect(csvMetrics).toMatch(/controller="operator"/);
      expect(csvMetrics).not.toMatch(/controller="(installplan|namespace-resolution|catalogsource|subscription)"/);
      // The hand-made CSV got its OperatorCondition from the csv process.
      await expect.poll(() => find('operators.coreos.com/v2', 'OperatorCondition', 'direct', 'acme-database.v1.0.0'), { timeout: 30_000, interval: 200 }).toBeDefined();

      // The Catalog Operator joins: it resolves the Subscription into an InstallPlan and applies it;
      // the CSV controller already running installs the result.
      catalogOnly = run(['catalog'], (text) => {
        outputs.push(text);
        catalogUrl ??= /on (http:\/\/\S+)/.exec(text)?.[1];
      });
      const installedCsv = await expect
        .poll(async () => (await find('operators.coreos.com/v1alpha1', 'Subscription', 'subscribed', 'acme-database'))?.status?.installedCSV as string | undefined, {
          timeout: 60_000,
          interval: 200,
        })
        .toBeDefined()
        .then(async () => (await find('operators.coreos.com/v1alpha1', 'Subscription', 'subscribed', 'acme-database'))!.status.installedCSV as string);
      await expect.poll(() => csvPhase('subscribed', installedCsv), { timeout: 60_000, interval: 200 }).toBe('Succeeded');
      expect((await installPlans('subscribed')).length).toBeGreaterThan(0);
      expect(outputs.join('')).toContain('olm running controllers catalog:');
      expect(await find('coordination.k8s.io/v1', 'Lease', 'olm', 'olm-controllers-catalog')).toBeDefined();
      const catalogMetrics = await (await fetch(`${catalogUrl}/metrics`)).text();
      expect(catalogMetrics).toMatch(/controller="installplan"/);
      expect(catalogMetrics).toMatch(/controller="subscription"/);
      expect(catalogMetrics).not.toMatch(/controller="(csv|operatorgroup|operator|operator-condition|adoption-subscription)"/);
    } finally {
      process.emit('SIGTERM');
      await csvOnly;
      await catalogOnly;
    }
  }, 180_000);
});

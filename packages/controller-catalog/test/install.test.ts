import type { KubeClient } from '@olm/core';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegistryServer } from '@olm/registry';
import { Kinds, type AnyObject } from '../src/kinds.js';
import {
  approveInstallPlan,
  condition,
  createOperatorNamespace,
  eventually,
  get,
  grpcCatalogSource,
  list,
  sleep,
  startCluster,
  startController,
  startRegistry,
  subscription,
} from './helpers.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let registry: RegistryServer;
let controller: Awaited<ReturnType<typeof startController>>;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  registry = await startRegistry();
  await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
  controller = await startController(cluster.server, client);
});
afterAll(async () => {
  await controller?.stop();
  await registry?.stop();
  await cluster?.stop();
});

const phaseOf = (object: AnyObject | undefined) => (object?.status as { phase?: string } | undefined)?.phase;
const stepsOf = (plan: AnyObject) => ((plan.status as { plan?: Array<{ resolving: string; resource: { kind: string; name: string }; status: string }> }).plan ?? []);

describe('installing from a subscription', () => {
  it('reports the catalog source connection in its status', async () => {
    const source = await eventually(async () => {
      const found = await get(client, Kinds.catalogSource, 'olm', 'acme-examples');
      return (found?.status as { connectionState?: { lastObservedState?: string } } | undefined)?.connectionState?.lastObservedState === 'READY' && found;
    });
    expect(source.status).toMatchObject({ connectionState: { address: registry.address, lastObservedState: 'READY' } });
  });

  it('resolves acme-backup with its dependency into one InstallPlan and executes it to Complete', async () => {
    await createOperatorNamespace(client, 'backup');
    await client.create(subscription('backup', 'acme-backup', {}));
    const plan = await eventually(async () => {
      const plans = await list(client, Kinds.installPlan, 'backup');
      return plans.length === 1 && phaseOf(plans[0]) === 'Complete' && plans[0];
    });
    expect(plan.metadata?.generateName).toBe('install-');
    expect(plan.spec).toMatchObject({ approval: 'Automatic', approved: true, generation: 1 });
    expect([...((plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames)].sort()).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);
    expect(plan.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Subscription', name: 'acme-backup', blockOwnerDeletion: false, controller: false }),
    ]);
    const steps = stepsOf(plan);
    // CSVs first, then CRDs, then the rest; every step done
    expect(steps.slice(0, 2).map((step) => step.resource.kind)).toEqual(['ClusterServiceVersion', 'ClusterServiceVersion']);
    expect(steps.every((step) => step.status === 'Created' || step.status === 'Present')).toBe(true);
    expect(steps.find((step) => step.resource.kind === 'Subscription')).toMatchObject({
      resolving: 'acme-database.v1.2.0',
      resource: { name: 'acme-database-stable-acme-examples-olm' },
      status: 'Created',
    });
    expect(condition(plan, 'Installed')).toMatchObject({ status: 'True' });
    expect((plan.status as { catalogSources: string[] }).catalogSources).toEqual(['acme-examples']);

    // what the plan created
    const csv = await get(client, Kinds.clusterServiceVersion, 'backup', 'acme-backup.v0.2.0');
    expect(csv?.metadata?.labels).toMatchObject({ 'olm.managed': 'true' });
    const databaseCrd = await get(client, Kinds.customResourceDefinition, undefined, 'databases.acme.example.com');
    expect(databaseCrd?.metadata?.labels).toMatchObject({ 'olm.managed': 'true' });
    // upstream's record of the CSV the CRD came with (key: FNV-1a of "backup/acme-database.v1.2.0")
    expect(databaseCrd?.metadata?.annotations).toMatchObject({ 'operatorframework.io/installed-alongside-cd28fc47bd9d19e9': 'backup/acme-database.v1.2.0' });
    expect(JSON.parse(csv!.metadata!.annotations!['operatorframework.io/properties']!).properties).toContainEqual({
      type: 'olm.package',
      value: { packageName: 'acme-backup', version: '0.2.0' },
    });
    expect(await get(client, Kinds.clusterServiceVersion, 'backup', 'acme-database.v1.2.0')).toBeDefined();
    expect(await get(client, Kinds.customResourceDefinition, undefined, 'databases.acme.example.com')).toBeDefined();
    const serviceAccount = await get(client, { apiVersion: 'v1', kind: 'ServiceAccount' }, 'backup', 'acme-database-operator');
    expect(serviceAccount?.metadata?.labels).toMatchObject({ 'olm.managed': 'true' });
    expect(serviceAccount?.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'ClusterServiceVersion', name: 'acme-database.v1.2.0', blockOwnerDeletion: false, controller: false }),
    ]);
    // the CSV's permissions, through the RBAC generator: namespaced objects owned by the CSV, named after it and its service account
    for (const kind of ['Role', 'RoleBinding']) {
      const owned = (await list(client, { apiVersion: 'rbac.authorization.k8s.io/v1', kind }, 'backup')).filter((object) =>
        object.metadata?.ownerReferences?.some((owner) => owner.kind === 'ClusterServiceVersion' && owner.name === 'acme-database.v1.2.0'),
      );
      // `<csv>-<service account>` cut to leave room for `-<hash>` within 63 characters
      expect(owned.map((object) => object.metadata?.name)).toEqual([expect.stringMatching(/^acme-database\.v1\.2\.0-acm-\w+$/)]);
      expect(owned[0]!.metadata!.name!.length).toBeLessThanOrEqual(63);
      expect(owned[0]!.metadata?.labels).toMatchObject({ 'olm.managed': 'true' });
      expect(steps).toContainEqual(expect.objectContaining({ resolving: 'acme-database.v1.2.0', resource: expect.objectContaining({ kind, name: owned[0]!.metadata?.name }) }));
    }
    const clusterRoles = (await list(client, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' })).filter(
      (role) => role.metadata?.labels?.['olm.owner'] === 'acme-database.v1.2.0',
    );
    expect(clusterRoles.length).toBeGreaterThan(0);
    expect(clusterRoles[0]!.metadata?.labels).toMatchObject({ 'olm.owner.namespace': 'backup', 'olm.owner.kind': 'ClusterServiceVersion', 'olm.managed': 'true' });

    // the dependency's Subscription, adopted by its plan
    const dependency = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'backup', 'acme-database-stable-acme-examples-olm');
      return (found?.status as { state?: string } | undefined)?.state === 'AtLatestKnown' && found;
    });
    expect(dependency.metadata?.annotations).toMatchObject({ 'olm.generated-by': plan.metadata?.name });
    expect(dependency.metadata?.labels).toMatchObject({ 'olm.managed': 'true' });
    expect(dependency.spec).toMatchObject({ name: 'acme-database', startingCSV: 'acme-database.v1.2.0', installPlanApproval: 'Automatic' });
    expect(dependency.status).toMatchObject({ installedCSV: 'acme-database.v1.2.0', installPlanRef: { name: plan.metadata?.name } });

    const subscribed = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'backup', 'acme-backup');
      return (found?.status as { state?: string } | undefined)?.state === 'AtLatestKnown' && found;
    });
    expect(subscribed.status).toMatchObject({
      currentCSV: 'acme-backup.v0.2.0',
      installedCSV: 'acme-backup.v0.2.0',
      installPlanGeneration: 1,
      installPlanRef: { kind: 'InstallPlan', name: plan.metadata?.name, namespace: 'backup' },
      installplan: { kind: 'InstallPlan', name: plan.metadata?.name, uuid: plan.metadata?.uid },
    });
    expect(condition(subscribed, 'CatalogSourcesUnhealthy')).toMatchObject({ status: 'False', message: 'all available catalogsources are healthy' });

    // settled: no second plan
    await sleep(500);
    expect(await list(client, Kinds.installPlan, 'backup')).toHaveLength(1);
  });

  it('waits for approval with Manual plans and upgrades one hop per plan along the channel, never onto a deprecated bundle', async () => {
    await createOperatorNamespace(client, 'upgrade');
    await client.create(subscription('upgrade', 'acme-database', { startingCSV: 'acme-database.v1.0.0', installPlanApproval: 'Manual' }));
    const approveNext = async (csv: string, expectedGeneration: number) => {
      const plan = await eventually(async () => {
        const plans = await list(client, Kinds.installPlan, 'upgrade');
        return plans.find((candidate) => (candidate.spec as { generation: number }).generation === expectedGeneration && phaseOf(candidate) === 'RequiresApproval');
      }, { message: `plan for ${csv}` });
      expect(plan.spec).toMatchObject({ approval: 'Manual', approved: false, clusterServiceVersionNames: [csv] });
      // nothing happens before approval
      await sleep(300);
      expect(await get(client, Kinds.clusterServiceVersion, 'upgrade', csv)).toBeUndefined();
      const sub = await get(client, Kinds.subscription, 'upgrade', 'acme-database');
      expect(sub?.status).toMatchObject({ state: 'UpgradePending', currentCSV: csv, installPlanRef: { name: plan.metadata?.name } });
      expect(condition(sub, 'InstallPlanPending')).toMatchObject({ status: 'True', reason: 'RequiresApproval' });
      await approveInstallPlan(cluster.server, client, 'upgrade', plan.metadata!.name!);
      await eventually(async () => phaseOf(await get(client, Kinds.installPlan, 'upgrade', plan.metadata!.name!)) === 'Complete', { message: `${csv} installed` });
      return plan;
    };

    await approveNext('acme-database.v1.0.0', 1);
    await approveNext('acme-database.v1.1.0', 2);
    const csv = await get(client, Kinds.clusterServiceVersion, 'upgrade', 'acme-database.v1.1.0');
    expect((csv!.spec as { replaces?: string }).replaces).toBe('acme-database.v1.0.0');
    // the OLM operator deletes a replaced CSV once its successor runs; do its part here
    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'upgrade', name: 'acme-database.v1.0.0' });
    // 1.1.1 replaces 1.1.0 but is deprecated: the next hop is 1.2.0, which skips it
    await approveNext('acme-database.v1.2.0', 3);
    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'upgrade', name: 'acme-database.v1.1.0' });
    const settled = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'upgrade', 'acme-database');
      return (found?.status as { installedCSV?: string } | undefined)?.installedCSV === 'acme-database.v1.2.0' && found;
    });
    expect(settled.status).toMatchObject({ state: 'AtLatestKnown', currentCSV: 'acme-database.v1.2.0', installPlanGeneration: 3 });
    // each upgrade recorded its CSV on the shared CRD and dropped CSVs that were gone by then (1.0.0)
    const alongside = Object.entries((await get(client, Kinds.customResourceDefinition, undefined, 'databases.acme.example.com'))?.metadata?.annotations ?? {})
      .filter(([key]) => key.startsWith('operatorframework.io/installed-alongside-'))
      .map(([, value]) => value)
      .sort();
    expect(alongside).toEqual(['backup/acme-database.v1.2.0', 'upgrade/acme-database.v1.1.0', 'upgrade/acme-database.v1.2.0']);
    await sleep(500);
    expect(await list(client, Kinds.installPlan, 'upgrade')).toHaveLength(3);
  });

  it('marks subscriptions CatalogSourcesUnhealthy while the registry is down, and healthy once it is back', async () => {
    const port = registry.port;
    await registry.stop();
    const unhealthy = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'backup', 'acme-backup');
      return condition(found, 'CatalogSourcesUnhealthy')?.status === 'True' && found;
    });
    expect(condition(unhealthy, 'CatalogSourcesUnhealthy')).toMatchObject({ message: 'targeted catalogsource olm/acme-examples unhealthy' });
    expect((unhealthy.status as { catalogHealth: unknown[] }).catalogHealth).toEqual([
      expect.objectContaining({ catalogSourceRef: expect.objectContaining({ name: 'acme-examples', namespace: 'olm' }), healthy: false }),
    ]);
    const source = await get(client, Kinds.catalogSource, 'olm', 'acme-examples');
    expect((source?.status as { connectionState: { lastObservedState: string } }).connectionState.lastObservedState).toBe('TRANSIENT_FAILURE');

    registry = await startRegistry(port);
    const healthy = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'backup', 'acme-backup');
      return condition(found, 'CatalogSourcesUnhealthy')?.status === 'False' && found;
    }, { timeoutMs: 20_000 });
    expect(condition(healthy, 'CatalogSourcesUnhealthy')).toMatchObject({ message: 'all available catalogsources are healthy' });
  });
});

describe('catalog sources that cannot be served', () => {
  it('reports SpecInvalidError for a spec its source type cannot use', async () => {
    await createOperatorNamespace(client, 'broken');
    await client.create({ ...Kinds.catalogSource, metadata: { name: 'no-address', namespace: 'broken' }, spec: { sourceType: 'grpc' } });
    const source = await eventually(async () => {
      const found = await get(client, Kinds.catalogSource, 'broken', 'no-address');
      return !!(found?.status as { reason?: string } | undefined)?.reason && found;
    });
    expect(source.status).toMatchObject({ reason: 'SpecInvalidError', message: 'image and address unset: at least one must be set for sourcetype: grpc' });
  });

  it('gives an image-only source a registry Service and reports it unreachable, without blocking resolution elsewhere', async () => {
    await client.create({
      ...Kinds.catalogSource,
      metadata: { name: 'image.only', namespace: 'broken' },
      spec: { sourceType: 'grpc', image: 'registry.example.com/acme/catalog:latest', updateStrategy: { registryPoll: { interval: 'soon' } } },
    });
    const source = await eventually(async () => {
      const found = await get(client, Kinds.catalogSource, 'broken', 'image.only');
      return !!(found?.status as { connectionState?: unknown } | undefined)?.connectionState && found;
    });
    expect(source.status).toMatchObject({
      registryService: { protocol: 'grpc', serviceName: 'image-only', serviceNamespace: 'broken', port: '50051' },
      connectionState: { address: 'image-only.broken.svc:50051', lastObservedState: 'TRANSIENT_FAILURE' },
      reason: 'InvalidIntervalError',
    });
    expect((source.status as { message: string }).message).toMatch(/^error parsing spec.updateStrategy.registryPoll.interval. Using the default value of 15m0s instead. Error: /);
    // the registry Service and Pod a real cluster would run (here the Pod never starts)
    const service = await get(client, { apiVersion: 'v1', kind: 'Service' }, 'broken', 'image-only');
    expect(service?.spec).toMatchObject({ selector: { 'olm.catalogSource': 'image.only' }, ports: [{ name: 'grpc', port: 50051, targetPort: 50051 }] });
    expect(service?.metadata?.ownerReferences).toMatchObject([{ kind: 'CatalogSource', name: 'image.only', uid: source.metadata?.uid }]);
    const registryPods = async () =>
      (await list(client, { apiVersion: 'v1', kind: 'Pod' }, 'broken')).filter((pod) => pod.metadata?.labels?.['olm.catalogSource'] === 'image.only');
    const [pod] = await registryPods();
    expect(pod?.metadata?.name).toMatch(/^image\.only-/);
    expect((pod?.spec as { containers: unknown[] }).containers).toMatchObject([
      {
        name: 'registry-server',
        image: 'registry.example.com/acme/catalog:latest',
        imagePullPolicy: 'Always',
        ports: [{ name: 'grpc', containerPort: 50051 }],
        readinessProbe: { exec: { command: ['grpc_health_probe', '-addr=:50051'] }, initialDelaySeconds: 5, timeoutSeconds: 5 },
      },
    ]);
    // a new image replaces the Pod; the Service stays
    await client.patch({ ...Kinds.catalogSource, namespace: 'broken', name: 'image.only' }, { spec: { image: 'registry.example.com/acme/catalog:v2' } });
    const replaced = await eventually(async () => {
      const pods = await registryPods();
      return pods.length === 1 && (pods[0]!.spec as { containers: Array<{ image: string }> }).containers[0]!.image.endsWith(':v2') && pods;
    });
    expect(replaced[0]!.metadata?.name).not.toBe(pod!.metadata?.name);
    // a subscription in that namespace to the (healthy) global catalog still resolves
    await client.create(subscription('broken', 'acme-database', {}));
    const plan = await eventually(async () => (await list(client, Kinds.installPlan, 'broken'))[0]);
    expect((plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames).toEqual(['acme-database.v1.2.0']);
    const sub = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'broken', 'acme-database');
      return condition(found, 'CatalogSourcesUnhealthy')?.status === 'True' && found;
    });
    expect(condition(sub, 'CatalogSourcesUnhealthy')?.reason).toMatch(/^(UnhealthyCatalogSourceFound|CatalogSources(Added|Updated))$/);
  });

  it('recreates the registry Pod of a polled image catalog at each poll interval, keeping one', async () => {
    await client.create({
      ...Kinds.catalogSource,
      metadata: { name: 'polled', namespace: 'broken' },
      spec: { sourceType: 'grpc', image: 'registry.example.com/acme/catalog:latest', updateStrategy: { registryPoll: { interval: '1s' } } },
    });
    const podsOf = async () => (await list(client, { apiVersion: 'v1', kind: 'Pod' }, 'broken')).filter((pod) => pod.metadata?.labels?.['olm.catalogSource'] === 'polled');
    const first = await eventually(async () => (await podsOf())[0]);
    const next = await eventually(async () => {
      const pods = await podsOf();
      return pods.length === 1 && pods[0]!.metadata?.name !== first.metadata?.name && pods[0];
    });
    expect((next.spec as { containers: Array<{ imagePullPolicy: string }> }).containers[0]!.imagePullPolicy).toBe('Always');
    const source = await get(client, Kinds.catalogSource, 'broken', 'polled');
    expect((source?.status as { latestImageRegistryPoll?: string }).latestImageRegistryPoll).toBeDefined();
  });
});

describe('resolution failures', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-catalog-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('explains unsatisfiable constraints on the Subscription and installs nothing', async () => {
    const csv = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'lonely.v1.0.0' },
      spec: { version: '1.0.0', install: { strategy: 'deployment', spec: { deployments: [] } } },
    };
    writeFileSync(
      join(directory, 'catalog.json'),
      [
        { schema: 'olm.package', name: 'lonely', defaultChannel: 'stable' },
        { schema: 'olm.channel', package: 'lonely', name: 'stable', entries: [{ name: 'lonely.v1.0.0' }] },
        {
          schema: 'olm.bundle',
          name: 'lonely.v1.0.0',
          package: 'lonely',
          image: 'registry.example.com/lonely:v1.0.0',
          properties: [
            { type: 'olm.package', value: { packageName: 'lonely', version: '1.0.0' } },
            { type: 'olm.gvk.required', value: { group: 'missing.example.com', version: 'v1', kind: 'Widget' } },
            { type: 'olm.bundle.object', value: { data: Buffer.from(JSON.stringify(csv)).toString('base64') } },
          ],
        },
      ]
        .map((blob) => JSON.stringify(blob))
        .join('\n'),
    );
    await createOperatorNamespace(client, 'unsat', { 'olm.operatorframework.io/exclude-global-namespace-resolution': 'true' });
    await client.create({ ...Kinds.catalogSource, metadata: { name: 'local', namespace: 'unsat' }, spec: { sourceType: 'fbc-directory', address: directory } });
    await client.create(subscription('unsat', 'lonely', { source: 'local', sourceNamespace: 'unsat' }));
    const sub = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'unsat', 'lonely');
      // (until the catalog is connected, resolution fails with ErrorPreventedResolution)
      return condition(found, 'ResolutionFailed')?.reason === 'ConstraintsNotSatisfiable' && found;
    });
    expect(condition(sub, 'ResolutionFailed')).toMatchObject({ status: 'True', reason: 'ConstraintsNotSatisfiable' });
    const message = condition(sub, 'ResolutionFailed')!.message!;
    expect(message).toMatch(/^constraints not satisfiable: /);
    expect(message).toContain('requires an operator providing an API with group: missing.example.com, version: v1, kind: Widget');
    expect(message).toContain('subscription lonely requires local/unsat/stable/lonely.v1.0.0');
    // the OperatorGroup excludes the global catalogs from resolution (the message names only local), yet
    // their health is still listed, as upstream lists every catalog of the namespace and the global one
    expect(message).not.toContain('acme-examples');
    expect(
      (sub.status as { catalogHealth: Array<{ catalogSourceRef: { name: string; namespace: string } }> }).catalogHealth.map(
        (entry) => `${entry.catalogSourceRef.namespace}/${entry.catalogSourceRef.name}`,
      ),
    ).toEqual(['olm/acme-examples', 'unsat/local']);
    expect(await list(client, Kinds.installPlan, 'unsat')).toEqual([]);
    expect(await list(client, Kinds.clusterServiceVersion, 'unsat')).toEqual([]);
    expect(sub.status).not.toHaveProperty('installPlanRef');
  });

  it('needs exactly one OperatorGroup', async () => {
    await createOperatorNamespace(client, 'two-groups');
    await client.create({ ...Kinds.operatorGroup, metadata: { name: 'second', namespace: 'two-groups' }, spec: {} });
    await client.create(subscription('two-groups', 'acme-database', {}));
    const sub = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'two-groups', 'acme-database');
      return condition(found, 'ResolutionFailed') && found;
    });
    expect(condition(sub, 'ResolutionFailed')).toMatchObject({
      status: 'True',
      reason: 'ErrorPreventedResolution',
      message: 'expected 1 OperatorGroup in the namespace, found 2',
    });
    // fixed: resolution proceeds and the condition goes away
    await client.delete({ ...Kinds.operatorGroup, namespace: 'two-groups', name: 'second' });
    const fixed = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'two-groups', 'acme-database');
      return !condition(found, 'ResolutionFailed') && !!(found?.status as { installPlanRef?: unknown } | undefined)?.installPlanRef && found;
    }, { timeoutMs: 20_000 });
    expect(fixed.status).toMatchObject({ currentCSV: 'acme-database.v1.2.0' });
  });

  it('reports an InstallPlan the API server refuses under BundleUnpackFailed with reason EnsureInstallPlanFailed, as upstream', async () => {
    // a bundle whose manifests make the plan's status larger than the API server takes (3 MiB)
    const hugeDirectory = join(directory, 'huge');
    mkdirSync(hugeDirectory);
    const csv = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'huge.v1.0.0' },
      spec: { displayName: 'huge', version: '1.0.0', install: { strategy: 'deployment', spec: { deployments: [] } } },
    };
    const bigConfigMaps = [0, 1, 2, 3].map((index) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${index}` }, data: { blob: 'x'.repeat(900_000) } }));
    const object = (value: object) => ({ type: 'olm.bundle.object', value: { data: Buffer.from(JSON.stringify(value)).toString('base64') } });
    writeFileSync(
      join(hugeDirectory, 'catalog.json'),
      [
        { schema: 'olm.package', name: 'huge', defaultChannel: 'stable' },
        { schema: 'olm.channel', package: 'huge', name: 'stable', entries: [{ name: 'huge.v1.0.0' }] },
        {
          schema: 'olm.bundle',
          name: 'huge.v1.0.0',
          package: 'huge',
          image: 'registry.example.com/huge:v1.0.0',
          properties: [{ type: 'olm.package', value: { packageName: 'huge', version: '1.0.0' } }, object(csv), ...bigConfigMaps.map(object)],
        },
      ]
        .map((blob) => JSON.stringify(blob))
        .join('\n'),
    );
    await createOperatorNamespace(client, 'huge', { 'olm.operatorframework.io/exclude-global-namespace-resolution': 'true' });
    await client.create({ ...Kinds.catalogSource, metadata: { name: 'huge', namespace: 'huge' }, spec: { sourceType: 'fbc-directory', address: hugeDirectory } });
    await client.create(subscription('huge', 'huge', { source: 'huge', sourceNamespace: 'huge' }));
    const sub = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'huge', 'huge');
      return condition(found, 'BundleUnpackFailed')?.reason === 'EnsureInstallPlanFailed' && found;
    }, { timeoutMs: 30_000 });
    expect(condition(sub, 'BundleUnpackFailed')).toMatchObject({ status: 'True', reason: 'EnsureInstallPlanFailed' });
    expect(condition(sub, 'BundleUnpackFailed')?.message).toMatch(/^error ensuring InstallPlan: .*413.*Request entity too large: limit is 3145728/);
    expect((sub.status as { installPlanRef?: unknown }).installPlanRef).toBeUndefined();
  });

  it('refuses an unpack annotation of the OperatorGroup that is not a Go duration, in upstream\'s words', async () => {
    await createOperatorNamespace(client, 'bad-timeout', { 'operatorframework.io/bundle-unpack-timeout': 'soon' });
    await client.create(subscription('bad-timeout', 'acme-database', {}));
    const sub = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'bad-timeout', 'acme-database');
      return condition(found, 'ResolutionFailed') && found;
    });
    expect(condition(sub, 'ResolutionFailed')).toMatchObject({
      status: 'True',
      reason: 'ErrorPreventedResolution',
      message:
        'failed to parse unpack timeout annotation(operatorframework.io/bundle-unpack-timeout: soon): time: invalid duration "soon"; fix the annotation of OperatorGroup bad-timeout (a Go duration such as 10m or 1h30m)',
    });
    expect(await list(client, Kinds.installPlan, 'bad-timeout')).toEqual([]);
  });

  it('keeps at most 5 InstallPlans in a namespace, collecting the oldest generations', async () => {
    await createOperatorNamespace(client, 'gc');
    await client.create(subscription('gc', 'acme-database', { installPlanApproval: 'Manual' }));
    await eventually(async () => (await list(client, Kinds.installPlan, 'gc')).length === 1);
    for (const generation of [10, 11, 12, 13, 14]) {
      await client.create({
        ...Kinds.installPlan,
        metadata: { name: `old-${generation}`, namespace: 'gc' },
        spec: { clusterServiceVersionNames: [], approval: 'Manual', approved: false, generation },
      });
    }
    const kept = await eventually(async () => {
      const plans = await list(client, Kinds.installPlan, 'gc');
      return plans.length === 5 && plans;
    });
    // The Subscription's own plan (generation 1) is the oldest and goes; re-resolving may then create
    // generation 15 and collect 10. Either way only the five newest generations remain.
    const generations = kept.map((plan) => (plan.spec as { generation: number }).generation).sort((a, b) => a - b);
    expect(generations).not.toContain(1);
    const newest = generations.at(-1)!;
    expect(generations).toEqual([newest - 4, newest - 3, newest - 2, newest - 1, newest]);
  });
});

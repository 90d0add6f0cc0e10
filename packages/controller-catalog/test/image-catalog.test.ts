import type { KubeClient } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog, startRegistryServer } from '@olm/registry';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { builtInSourceTypes, condition, createOperatorNamespace, eventually, exampleCatalogDir, get, list, startCluster, startController, subscription } from './helpers.js';

const catalogImage = 'quay.io/acme/examples-catalog:v1';

type ConnectionStatus = { connectionState?: { address?: string; lastObservedState?: string; lastConnect?: string }; registryService?: Record<string, unknown> };
const statusOf = (source: AnyObject | undefined) => (source?.status ?? {}) as ConnectionStatus;
const phaseOf = (object: AnyObject | undefined) => (object?.status as { phase?: string } | undefined)?.phase;

/**
 * An image catalog end to end: the CatalogSource's registry Pod runs a real gRPC registry server (the
 * embedded API server starts it for the Pod's image, on the Pod's own loopback IP, port 50051), the
 * controller finds the Pod through the registry Service and connects, and a Subscription installs from it.
 */
describe('a CatalogSource with an image, served by its registry Pod', () => {
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  let client: KubeClient;
  let controller: Awaited<ReturnType<typeof startController>>;
  const started: string[] = [];

  beforeAll(async () => {
    cluster = await startCluster({
      podImageServers: {
        // what the catalog image's container runs: `opm serve /configs` on 50051, here the example catalog
        [catalogImage]: async ({ podIP, name }) => {
          const server = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), host: podIP, port: 50051 });
          started.push(name);
          return { stop: () => server.stop({ graceMs: 0 }) };
        },
      },
    });
    client = cluster.client;
    controller = await startController(cluster.server, client, { catalogSourceTypes: builtInSourceTypes({ registryPod: { serviceRouting: 'pod-ip' } }) });
    await client.create({ ...Kinds.catalogSource, metadata: { name: 'acme-image', namespace: 'olm' }, spec: { sourceType: 'grpc', image: catalogImage } });
  });
  afterAll(async () => {
    await controller?.stop();
    await cluster?.stop();
  });

  const registryPods = async () => (await list(client, { apiVersion: 'v1', kind: 'Pod' }, 'olm')).filter((pod) => pod.metadata?.labels?.['olm.catalogSource'] === 'acme-image');
  const ready = () =>
    eventually(async () => {
      const found = await get(client, Kinds.catalogSource, 'olm', 'acme-image');
      return statusOf(found).connectionState?.lastObservedState === 'READY' && found;
    }, { timeoutMs: 20_000, message: 'CatalogSource acme-image READY' });

  it('connects to the registry in the Pod and reports READY at the Service address', async () => {
    const source = await ready();
    expect(statusOf(source).registryService).toMatchObject({ protocol: 'grpc', serviceName: 'acme-image', serviceNamespace: 'olm', port: '50051' });
    expect(statusOf(source).connectionState?.address).toBe('acme-image.olm.svc:50051');
    const [pod] = await registryPods();
    expect(phaseOf(pod)).toBe('Running');
    expect((pod?.status as { podIP?: string }).podIP).toMatch(/^127\./);
    expect(started).toEqual([pod?.metadata?.name]);
  });

  it('installs a Subscription from it', async () => {
    await createOperatorNamespace(client, 'image-catalog');
    await client.create(subscription('image-catalog', 'acme-database', { source: 'acme-image', sourceNamespace: 'olm' }));
    const plan = await eventually(async () => {
      const plans = await list(client, Kinds.installPlan, 'image-catalog');
      return plans.length === 1 && phaseOf(plans[0]) === 'Complete' && plans[0];
    }, { timeoutMs: 30_000, message: 'InstallPlan Complete' });
    expect((plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames).toEqual(['acme-database.v1.2.0']);
    expect(await get(client, Kinds.clusterServiceVersion, 'image-catalog', 'acme-database.v1.2.0')).toBeDefined();
    const sub = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'image-catalog', 'acme-database');
      return (found?.status as { state?: string } | undefined)?.state === 'AtLatestKnown' && found;
    });
    expect(condition(sub, 'CatalogSourcesUnhealthy')).toMatchObject({ status: 'False' });
  });

  it('follows the registry to a new Pod when the old one is deleted', async () => {
    const [old] = await registryPods();
    await ready();
    // every status write, in order: the connection must drop and come back
    const states: string[] = [];
    const stopWatch = await client.watch(
      '/apis/operators.coreos.com/v1alpha1/namespaces/olm/catalogsources',
      { fieldSelector: 'metadata.name=acme-image' },
      (event) => states.push(statusOf(event.object as AnyObject).connectionState?.lastObservedState ?? ''),
      () => undefined,
    );
    try {
      await client.delete({ apiVersion: 'v1', kind: 'Pod', namespace: 'olm', name: old!.metadata!.name! });
      // the controller makes a new Pod, finds it through the Service and connects again
      await eventually(() => {
        const dropped = states.findIndex((state) => state !== 'READY' && state !== '');
        return dropped !== -1 && states.slice(dropped).includes('READY');
      }, { timeoutMs: 20_000, message: `READY again on a new Pod (states seen: ${states.join(', ')})` });
    } finally {
      stopWatch();
    }
    const pods = await registryPods();
    expect(pods.map((pod) => pod.metadata?.name)).not.toContain(old!.metadata!.name);
    expect(started.at(-1)).toBe(pods[0]?.metadata?.name);
    expect(statusOf(await get(client, Kinds.catalogSource, 'olm', 'acme-image')).connectionState?.address).toBe('acme-image.olm.svc:50051');
  });
});

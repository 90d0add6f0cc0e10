import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient, ObjectReader } from '@olm/core';
import type { Step } from '../src/bundles/bundle-steps.js';
import type { CatalogControllerContext } from '../src/controller-context.js';
import { executePlan } from '../src/install-plans/install-plan-executor.js';
import { installedAlongside, installedAlongsideKey } from '../src/install-plans/installed-alongside.js';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { createNamespace, startCluster } from './helpers.js';

// Which CSVs a CRD step records as installed alongside: read from the cache when it holds them, else live.
const csv = (namespace: string, labels: Record<string, string> = {}): AnyObject => ({
  ...Kinds.clusterServiceVersion,
  metadata: { name: 'widget.v1', namespace, labels },
  spec: { displayName: 'Widget', install: { strategy: 'deployment', spec: { deployments: [] } } },
});
const crdStep = (name: string): Step => {
  const alongside = ['cached/widget.v1', 'live/widget.v1', 'gone/widget.v1'];
  const manifest = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${name}.example.com`,
      annotations: Object.fromEntries(alongside.map((value) => [installedAlongsideKey({ namespace: value.split('/')[0]!, name: 'widget.v1' }), value])),
    },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: name, singular: name.slice(0, -1), kind: `${name[0]!.toUpperCase()}${name.slice(1, -1)}`, listKind: 'List' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  return {
    resolving: 'widget.v1',
    resource: { sourceName: 'local', sourceNamespace: 'olm', group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', name: manifest.metadata.name, manifest: JSON.stringify(manifest) },
    status: 'Unknown',
  };
};

describe('installed-alongside annotations of a CRD step', () => {
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  let client: KubeClient;
  let context: CatalogControllerContext;

  beforeAll(async () => {
    cluster = await startCluster();
    client = cluster.client;
    for (const namespace of ['cached', 'live', 'target']) await createNamespace(client, namespace);
    // Both exist as plain CSVs on the server.
    await client.create(csv('cached'));
    await client.create(csv('live'));
    context = { client: () => client, fieldManager: 'catalog-operator', events: () => ({ warning: async () => undefined }) } as unknown as CatalogControllerContext;
  }, 30_000);
  afterAll(async () => {
    await cluster.stop();
  });

  const recorded = async (name: string, cache?: ObjectReader) => {
    const plan = { ...Kinds.installPlan, metadata: { name: `install-${name}`, namespace: 'target' }, spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: [] } };
    const result = await executePlan(context, plan, [crdStep(name)], new AbortController().signal, cache);
    expect(result.error).toBeUndefined();
    const crd = await client.get<AnyObject>({ ...Kinds.customResourceDefinition, name: `${name}.example.com` });
    return installedAlongside(crd.metadata?.annotations).map((reference) => `${reference.namespace}/${reference.name}`).sort();
  };

  it('looks CSVs up live without a cache: gone ones are dropped', async () => {
    expect(await recorded('gadgets')).toEqual(['cached/widget.v1', 'live/widget.v1', 'target/widget.v1']);
  });

  it('takes a CSV from the cache when it has it, and looks up live the ones it lacks', async () => {
    // The cache sees cached/widget.v1 as a copy (so it is dropped); it lacks the others.
    const cache: ObjectReader = {
      // A fake holding plain objects of the kinds asked for: typed reads see them as the kind's type.
      get: (kind, name, namespace) => (kind.kind === 'ClusterServiceVersion' && namespace === 'cached' && name === 'widget.v1' ? csv('cached', { 'olm.copiedFrom': 'elsewhere' }) : undefined) as never,
      list: () => [],
    };
    expect(await recorded('gizmos', cache)).toEqual(['live/widget.v1', 'target/widget.v1']);
  });

  it('looks up live when CSVs are not cached at all', async () => {
    const cache: ObjectReader = {
      get: () => {
        throw new Error('no informer caches ClusterServiceVersion');
      },
      list: () => [],
    };
    expect(await recorded('doohickeys', cache)).toEqual(['cached/widget.v1', 'live/widget.v1', 'target/widget.v1']);
  });
});

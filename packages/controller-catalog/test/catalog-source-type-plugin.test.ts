import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot, type CatalogBundle, type CatalogConnection, type CatalogContent, type CatalogPackage, type CatalogSourceType, catalogSourceTypes, type ConnectionState, contribute, definePlugin, type Kernel, kubeClient, type KubeClient, type Property, provision } from '@olm/core';
import { createControllerRuntimePlugin } from '@olm/controller-runtime';
import { celPlugin } from '@olm/plugin-cel';
import { rbacPlugin } from '@olm/plugin-rbac';
import { satLogicSolverPlugin } from '@olm/plugin-sat-logic-solver';
import { loadCatalog } from '@olm/registry';
import { resolverPlugin } from '@olm/resolver';
import { createControllerCatalogPlugin } from '../src/index.js';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { createOperatorNamespace, eventually, exampleCatalogDir, get, list, startCluster, subscription } from './helpers.js';

// A platform team's own catalog source types, contributed through the kernel by a plugin of theirs
// (the registry plugin is not booted): the controller reaches them through core's contract only.
// Each serves the example catalog with every CSV annotated by the member that served it, so the
// installed CSVs tell which member the controller read their manifests from.
const servedBy = 'platform.example.com/served-by';
type Member = 'load' | 'loadWithoutManifests' | 'loadBundle';

const manifestTypes = new Set(['olm.bundle.object', 'olm.csv.metadata']);

function annotateCsv(property: Property, member: Member): Property {
  if (property.type !== 'olm.bundle.object') return property;
  const manifest = JSON.parse(Buffer.from((property.value as { data: string }).data, 'base64').toString('utf8')) as AnyObject;
  if (manifest.kind !== 'ClusterServiceVersion') return property;
  const annotated = { ...manifest, metadata: { ...manifest.metadata, annotations: { ...manifest.metadata?.annotations, [servedBy]: member } } };
  return { type: property.type, value: { data: Buffer.from(JSON.stringify(annotated)).toString('base64') } };
}

/** The catalog as `member` serves it: CSVs annotated; without manifests, image bundles lack them (as the contract allows). */
function served(catalog: CatalogContent, member: Member): CatalogContent {
  const packages = new Map<string, CatalogPackage>();
  for (const [name, pkg] of catalog.packages) {
    const bundles = new Map<string, CatalogBundle>();
    for (const [bundleName, bundle] of pkg.bundles) {
      if (member === 'loadWithoutManifests' && bundle.image) {
        const { relatedImages: _relatedImages, ...rest } = bundle;
        bundles.set(bundleName, { ...rest, properties: bundle.properties.filter((property) => !manifestTypes.has(property.type)) });
      } else {
        bundles.set(bundleName, { ...bundle, properties: bundle.properties.map((property) => annotateCsv(property, member)) });
      }
    }
    const { icon, ...rest } = pkg;
    packages.set(name, { ...rest, ...(icon && member !== 'loadWithoutManifests' ? { icon } : {}), bundles });
  }
  return { packages };
}

interface Recorded {
  readonly member: Member;
  readonly detail?: string;
}

/** A source type over the example catalog, recording each member the controller calls; with or without manifests on demand. */
function platformSourceType(sourceType: string, catalog: CatalogContent, onDemand: boolean, calls: Recorded[]): CatalogSourceType {
  return {
    sourceType,
    async open() {
      let state: ConnectionState = 'IDLE';
      const loaded = (content: CatalogContent) => ((state = 'READY'), content);
      const connection: CatalogConnection = {
        load: async () => (calls.push({ member: 'load' }), loaded(served(catalog, 'load'))),
        state: () => state,
        async close() {
          state = 'SHUTDOWN';
        },
      };
      if (!onDemand) return connection;
      return {
        ...connection,
        loadWithoutManifests: async () => (calls.push({ member: 'loadWithoutManifests' }), loaded(served(catalog, 'loadWithoutManifests'))),
        async loadBundle({ packageName, channelName, name }) {
          calls.push({ member: 'loadBundle', detail: `${packageName}/${channelName}/${name}` });
          const pkg = served(catalog, 'loadBundle').packages.get(packageName);
          const bundle = pkg?.channels.get(channelName)?.entries.some((entry) => entry.name === name) ? pkg.bundles.get(name) : undefined;
          if (!bundle) throw new Error(`no bundle ${name} in channel ${channelName} of package ${packageName}`);
          return bundle;
        },
      };
    },
  };
}

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let kernel: Kernel;
const onDemandCalls: Recorded[] = [];
const wholeCalls: Recorded[] = [];

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  const catalog = await loadCatalog(exampleCatalogDir);
  const platformCatalogsPlugin = definePlugin({
    id: 'platform-catalogs',
    version: '1.0.0',
    provides: [catalogSourceTypes],
    init: () => ({
      // Its own `grpc`, with manifests on demand, and a type without them.
      provide: [
        contribute(catalogSourceTypes, platformSourceType('grpc', catalog, true, onDemandCalls)),
        contribute(catalogSourceTypes, platformSourceType('platform-bundled', catalog, false, wholeCalls)),
      ],
    }),
  });
  kernel = await boot({
    plugins: [
      createControllerRuntimePlugin({ leaderElection: false }),
      createControllerCatalogPlugin({ installingRequeueMs: 200, catalogHealthCheckIntervalMs: 500, catalogUnhealthyRetryMs: 200 }),
      platformCatalogsPlugin,
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

/** Creates a CatalogSource of `sourceType` and a Subscription to acme-backup from it in `namespace`; returns the completed InstallPlan. */
async function installAcmeBackup(namespace: string, sourceType: string): Promise<AnyObject> {
  await createOperatorNamespace(client, namespace);
  await client.create({
    ...Kinds.catalogSource,
    metadata: { name: 'platform', namespace },
    spec: { sourceType, address: 'catalogs.platform.example.com:50051' },
  });
  await client.create(subscription(namespace, 'acme-backup', { source: 'platform', sourceNamespace: namespace }));
  return eventually(
    async () => {
      const plans = await list(client, Kinds.installPlan, namespace);
      return (plans[0]?.status as { phase?: string } | undefined)?.phase === 'Complete' && plans[0];
    },
    { timeoutMs: 20_000, message: `InstallPlan in ${namespace} Complete` },
  );
}

const csvNames = (plan: AnyObject) => [...(plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames].sort();
const servedMember = async (namespace: string, name: string) => (await get(client, Kinds.clusterServiceVersion, namespace, name))?.metadata?.annotations?.[servedBy];

describe('a catalog source type contributed by another plugin', () => {
  it('offering manifests on demand: the controller loads without manifests and fetches only the bundles it installs', async () => {
    const plan = await installAcmeBackup('on-demand', 'grpc');
    expect(csvNames(plan)).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);
    // The installed CSVs came from loadBundle, the only member whose CSVs carry that annotation.
    expect(await servedMember('on-demand', 'acme-backup.v0.2.0')).toBe('loadBundle');
    expect(await servedMember('on-demand', 'acme-database.v1.2.0')).toBe('loadBundle');
    expect(onDemandCalls.some((call) => call.member === 'loadWithoutManifests')).toBe(true);
    expect(onDemandCalls.filter((call) => call.member === 'load')).toEqual([]);
    const fetched = onDemandCalls.filter((call) => call.member === 'loadBundle').map((call) => call.detail);
    expect([...new Set(fetched)].sort()).toEqual(['acme-backup/stable/acme-backup.v0.2.0', 'acme-database/stable/acme-database.v1.2.0']);
    const source = await get(client, Kinds.catalogSource, 'on-demand', 'platform');
    expect(source?.status).toMatchObject({ connectionState: { address: 'catalogs.platform.example.com:50051', lastObservedState: 'READY' } });
  });

  it('without manifests on demand: the controller loads the whole catalog and installs from its inline manifests', async () => {
    const plan = await installAcmeBackup('whole', 'platform-bundled');
    expect(csvNames(plan)).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);
    expect(await servedMember('whole', 'acme-backup.v0.2.0')).toBe('load');
    expect(await servedMember('whole', 'acme-database.v1.2.0')).toBe('load');
    expect(wholeCalls.length).toBeGreaterThan(0);
  });
});

import { ProjectAnnotations, readInstallHistory } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import { describeError } from '@olm/core';
import { checkCrdUpgrade, isCrdView, type CustomResource } from '@olm/crd-upgrade-safety';
import { createRegistryClient } from '@olm/registry';
import { compareVersions, parseVersionTolerant } from '@olm/semver-range';
import { usageError } from '../cli-errors.js';
import { csvKind, type Json } from './install-plans.js';

const packageManifestKind = { apiVersion: 'packages.operators.coreos.com/v1', kind: 'PackageManifest' } as const;
const catalogSourceKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' } as const;
const crdKind = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** One CRD of the earlier version and what the upgrade-safety rules say of installing it over the live one. */
export interface CrdVerdict {
  readonly name: string;
  /** `new` (no live CRD), `safe`, or `refused` with the rule's message. */
  readonly verdict: 'new' | 'safe' | 'refused';
  readonly message?: string;
}

/** What `olm rollback` does, computed before anything changes. */
export interface RollbackPlan {
  readonly subscription: Json;
  readonly from: { readonly csv: string; readonly version?: string };
  readonly to: { readonly csv: string; readonly version: string; readonly channel: string };
  readonly catalog: string;
  readonly crds: readonly CrdVerdict[];
  /** When the earlier version was installed here before, from the install history. */
  readonly installedBefore?: string;
}

interface ChannelEntry {
  readonly name: string;
  readonly version?: string;
}

/**
 * Finds the earlier version in the catalog (the Subscription's channel first, then the others), and
 * checks each of its CRDs against the live CRD and its custom resources with the CRD upgrade-safety
 * rules the InstallPlan applies (`checkCrdUpgrade`), reading the bundle from the catalog's registry.
 */
export async function planRollback(client: KubeClient, subscription: Json, toVersion: string, catalogAddress: string | undefined): Promise<RollbackPlan> {
  const namespace = subscription.metadata!.namespace!;
  const installed = subscription.status?.installedCSV as string | undefined;
  if (!installed) throw usageError(`nothing to roll back: subscription ${namespace}/${subscription.metadata!.name} has installed nothing yet`);
  const installedCsv = await client.find<Json>({ ...csvKind, namespace, name: installed });
  const fromVersion = installedCsv?.spec?.version as string | undefined;
  const catalog = `${subscription.spec?.sourceNamespace}/${subscription.spec?.source}`;
  const to = await findVersion(client, subscription, toVersion);
  if (fromVersion && compareVersions(parseVersionTolerant(to.version), parseVersionTolerant(fromVersion)) >= 0) {
    throw usageError(`${toVersion} is not earlier than the installed ${installed} (${fromVersion}): olm rollback goes back; to move forward, change or remove the ${ProjectAnnotations.versionPin} annotation`);
  }
  const bundle = await readBundle(client, subscription, to, catalogAddress);
  const crds = await checkCrds(client, bundle);
  const before = readInstallHistory(subscription.metadata?.annotations).filter((entry) => entry.csv === to.csv).at(-1);
  return {
    subscription,
    from: { csv: installed, ...(fromVersion ? { version: fromVersion } : {}) },
    to,
    catalog,
    crds,
    ...(before ? { installedBefore: before.installedAt } : {}),
  };
}

async function findVersion(client: KubeClient, subscription: Json, version: string): Promise<RollbackPlan['to']> {
  const namespace = subscription.metadata!.namespace!;
  const packageName = String(subscription.spec?.name ?? '');
  const manifests = (await client.list<Json>(packageManifestKind, { namespace })).items;
  const manifest = manifests.find(
    (candidate) => candidate.status?.packageName === packageName && candidate.status?.catalogSource === subscription.spec?.source && candidate.status?.catalogSourceNamespace === subscription.spec?.sourceNamespace,
  );
  if (!manifest) throw usageError(`package ${packageName} is not offered by catalog ${subscription.spec?.sourceNamespace}/${subscription.spec?.source} (no PackageManifest): check kubectl get catalogsource -A`);
  const channels = (manifest.status?.channels ?? []) as Array<{ name: string; entries?: ChannelEntry[] }>;
  const own = String(subscription.spec?.channel || manifest.status?.defaultChannel || '');
  const ordered = [...channels.filter((channel) => channel.name === own), ...channels.filter((channel) => channel.name !== own)];
  for (const channel of ordered) {
    const entry = channel.entries?.find((candidate) => candidate.version === version || candidate.name === version);
    if (entry?.version) return { csv: entry.name, version: entry.version, channel: channel.name };
  }
  const offered = [...new Set(ordered.flatMap((channel) => (channel.entries ?? []).map((entry) => entry.version ?? entry.name)))];
  throw usageError(`version ${version} of ${packageName} is not in catalog ${subscription.spec?.sourceNamespace}/${subscription.spec?.source}; it offers ${offered.join(', ') || 'nothing'}`);
}

/** The registry address of the Subscription's catalog: `--catalog-address`, else what the CatalogSource publishes. */
async function registryAddress(client: KubeClient, subscription: Json, override: string | undefined): Promise<string> {
  if (override) return override;
  const source = await client.find<Json>({ ...catalogSourceKind, namespace: subscription.spec?.sourceNamespace, name: subscription.spec?.source });
  const service = source?.status?.registryService as { serviceName?: string; serviceNamespace?: string; port?: string } | undefined;
  const address = (source?.spec?.address as string | undefined) ?? (service?.serviceName ? `${service.serviceName}.${service.serviceNamespace}.svc:${service.port}` : undefined);
  if (!address) throw usageError(`catalog ${subscription.spec?.sourceNamespace}/${subscription.spec?.source} publishes no registry address yet: wait until it is ready, or pass --catalog-address HOST:PORT`);
  return address;
}

async function readBundle(client: KubeClient, subscription: Json, to: RollbackPlan['to'], override: string | undefined): Promise<readonly string[]> {
  const address = await registryAddress(client, subscription, override);
  const registry = createRegistryClient(address, { deadlineMs: 15_000 });
  try {
    return (await registry.getBundle(String(subscription.spec?.name), to.channel, to.csv)).object ?? [];
  } catch (error) {
    throw usageError(
      `cannot read ${to.csv} from the catalog's registry at ${address} to check its CRDs: ${describeError(error)}. ` +
        `From outside the cluster, forward the registry first (kubectl port-forward -n ${subscription.spec?.sourceNamespace} svc/${subscription.spec?.source} 50051) and pass --catalog-address 127.0.0.1:50051`,
    );
  }
}

async function checkCrds(client: KubeClient, objects: readonly string[]): Promise<CrdVerdict[]> {
  const verdicts: CrdVerdict[] = [];
  for (const text of objects) {
    let shipped: unknown;
    try {
      shipped = JSON.parse(text);
    } catch {
      continue;
    }
    if ((shipped as Json).kind !== 'CustomResourceDefinition' || !isCrdView(shipped)) continue;
    const live = await client.find<Json>({ ...crdKind, name: shipped.metadata.name });
    if (!live || !isCrdView(live)) {
      verdicts.push({ name: shipped.metadata.name, verdict: 'new' });
      continue;
    }
    const group = shipped.spec.group;
    const kind = shipped.spec.names.kind;
    const result = await checkCrdUpgrade(live, shipped, (version) => listPaged(client, { apiVersion: `${group}/${version}`, kind }));
    verdicts.push(result.error ? { name: shipped.metadata.name, verdict: 'refused', message: result.error } : { name: shipped.metadata.name, verdict: 'safe' });
  }
  return verdicts;
}

/** Every object of a kind, read 500 at a time as the InstallPlan's check reads them (a large CR count is one page at a time on the wire). */
async function listPaged(client: KubeClient, kind: { apiVersion: string; kind: string }): Promise<CustomResource[]> {
  const items: CustomResource[] = [];
  let next: string | undefined;
  do {
    const page = await client.list<Json>(kind, { limit: 500, ...(next ? { continue: next } : {}) });
    items.push(...(page.items as CustomResource[]));
    next = page.continue;
  } while (next);
  return items;
}

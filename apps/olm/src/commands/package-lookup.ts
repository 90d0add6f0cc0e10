import type { KubeClient } from '@olm/controller-runtime';
import { describeError, didYouMean, hasErrorCode, type CachedObject } from '@olm/core';
import type { PackageManifest } from '@olm/packageserver';
import { usageError } from '../cli-errors.js';

const packageManifestKind = { apiVersion: 'packages.operators.coreos.com/v1', kind: 'PackageManifest' } as const;
/** What is read of a PackageManifest here. */
type Manifest = Pick<PackageManifest, 'status'>;

const catalogSourceKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' } as const;

export interface CatalogRef {
  readonly name: string;
  readonly namespace: string;
}

export interface PackageRequest {
  readonly packageName: string;
  /** Where the Subscription goes: it sees its own namespace's catalogs and the global ones. */
  readonly namespace: string;
  readonly catalogNamespace: string;
  readonly source?: string;
  readonly channel?: string;
  readonly version?: string;
  readonly startingCsv?: string;
}

/** What to subscribe to. `checked` is false when no PackageManifests could be read (no packageserver). */
export interface PackageChoice {
  readonly catalog: CatalogRef;
  readonly channel?: string;
  readonly startingCsv?: string;
  readonly checked: boolean;
}

/**
 * Checks an install request against the catalogs before anything is created, as kubectl-operator
 * does, through the PackageManifests of `packages.operators.coreos.com/v1` visible from the
 * namespace: the package, its catalog (the only one offering it, or `--source`), the channel
 * (default: the package's default channel) and `--version` or `--starting-csv` (an entry of that
 * channel). Unknown names are refused naming the close matches. Without that API (no
 * packageserver), it warns and picks the CatalogSource alone, leaving the rest to resolution.
 */
export async function choosePackage(client: KubeClient, request: PackageRequest, warn: (text: string) => void): Promise<PackageChoice> {
  if (request.version !== undefined && request.startingCsv !== undefined) throw usageError('pass --version or --starting-csv, not both');
  const sources = await visibleCatalogSources(client, request.namespace, request.catalogNamespace);
  if (request.source !== undefined && !sources.some((catalog) => catalog.name === request.source)) {
    throw usageError(
      `CatalogSource ${request.source} not found in ${request.namespace} or ${request.catalogNamespace}; visible: ${sources.map(catalogName).join(', ') || 'none'}` +
        didYouMean(request.source, sources.map((catalog) => catalog.name)),
    );
  }
  if (sources.length === 0) {
    throw usageError(`no CatalogSource in ${request.namespace} or ${request.catalogNamespace}: create one (see examples/catalogsource.yaml) or pass --source`);
  }
  const manifests = await readPackageManifests(client, request.namespace, request.packageName, warn);
  if (manifests === undefined) return uncheckedChoice(request, sources);

  const offering = manifests.filter((manifest) => manifest.status.packageName === request.packageName);
  if (offering.length === 0) {
    const known = await readPackageManifests(client, request.namespace, undefined, warn);
    const names = [...new Set((known ?? []).map((manifest) => manifest.status.packageName))].sort();
    const suggestion = didYouMean(request.packageName, names);
    throw usageError(
      `unknown package "${request.packageName}"${suggestion}` +
        (suggestion === '' ? ` (the catalogs visible from namespace ${request.namespace} offer ${listSome(names)}; see: kubectl get packagemanifests -n ${request.namespace})` : ''),
    );
  }
  // A --source in both namespaces means the Subscription's own namespace's, as OLM resolves it.
  const named = request.source !== undefined ? offering.filter((manifest) => manifest.status.catalogSource === request.source) : offering;
  const candidates = request.source !== undefined && named.length > 1 ? named.filter((manifest) => manifest.status.catalogSourceNamespace === request.namespace) : named;
  if (candidates.length === 0) {
    throw usageError(`package "${request.packageName}" is not in CatalogSource ${request.source}; it is in ${offering.map((manifest) => catalogName(catalogOf(manifest))).join(', ')}`);
  }
  if (candidates.length > 1) {
    throw usageError(`several CatalogSources could provide it (${candidates.map((manifest) => catalogName(catalogOf(manifest))).join(', ')}): pass --source NAME`);
  }
  const manifest = candidates[0]!;
  const catalog = catalogOf(manifest);
  const where = `package ${request.packageName} in ${catalogName(catalog)}`;
  const channelName = request.channel ?? manifest.status.defaultChannel;
  const channel = manifest.status.channels.find((candidate) => candidate.name === channelName);
  if (!channel) {
    const channels = manifest.status.channels.map((candidate) => candidate.name);
    throw usageError(`unknown channel "${channelName}" of ${where}${didYouMean(channelName, channels)} (channels: ${channels.join(', ') || 'none'})`);
  }
  const entries = channel.entries ?? [];
  let startingCsv = request.startingCsv;
  if (request.version !== undefined) {
    const wanted = request.version.replace(/^v/, '');
    const entry = entries.find((candidate) => candidate.version === wanted);
    if (!entry) {
      const versions = entries.map((candidate) => candidate.version ?? '').filter(Boolean);
      throw usageError(`no version ${request.version} in channel ${channel.name} of ${where}${didYouMean(wanted, versions)} (versions: ${versions.join(', ') || 'none'})`);
    }
    startingCsv = entry.name;
  } else if (startingCsv !== undefined && !entries.some((candidate) => candidate.name === startingCsv)) {
    const names = entries.map((candidate) => candidate.name);
    throw usageError(`no CSV ${startingCsv} in channel ${channel.name} of ${where}${didYouMean(startingCsv, names)} (entries: ${names.join(', ') || 'none'})`);
  }
  return { catalog, channel: channel.name, ...(startingCsv !== undefined ? { startingCsv } : {}), checked: true };
}

/** The PackageManifests visible from a namespace (of one package, or all); undefined when the API is not served. */
async function readPackageManifests(client: KubeClient, namespace: string, packageName: string | undefined, warn: (text: string) => void): Promise<Manifest[] | undefined> {
  try {
    const list = await client.list<CachedObject & Pick<PackageManifest, 'status'>>(packageManifestKind, {
      namespace,
      ...(packageName !== undefined ? { fieldSelector: `metadata.name=${packageName}` } : {}),
    });
    return list.items;
  } catch (error) {
    if (!isNotServed(error)) throw error;
    warn(
      `warning: the packages.operators.coreos.com API (PackageManifests) is not served here (${describeError(error)}); ` +
        'the package, channel and version are not checked before subscribing: start the packageserver (olm packageserver) to check them\n',
    );
    return undefined;
  }
}

/** No group in discovery, or an APIService whose server does not answer. */
function isNotServed(error: unknown): boolean {
  if (hasErrorCode(error, 'OLM_RUNTIME_UNKNOWN_KIND')) return true;
  const status = (error as { details?: { statusCode?: unknown } }).details?.statusCode;
  return status === 404 || status === 503;
}

function uncheckedChoice(request: PackageRequest, sources: readonly CatalogRef[]): PackageChoice {
  if (request.version !== undefined) {
    throw usageError('--version needs the PackageManifests of the packages.operators.coreos.com API to find its CSV; pass --starting-csv NAME instead');
  }
  const named = request.source !== undefined ? sources.filter((catalog) => catalog.name === request.source) : sources;
  if (named.length > 1 && request.source === undefined) {
    throw usageError(`several CatalogSources could provide it (${named.map(catalogName).join(', ')}): pass --source NAME`);
  }
  return {
    catalog: named[0]!,
    ...(request.channel !== undefined ? { channel: request.channel } : {}),
    ...(request.startingCsv !== undefined ? { startingCsv: request.startingCsv } : {}),
    checked: false,
  };
}

/** The CatalogSources a Subscription in `namespace` may use: its own namespace's (first), then the global namespace's. */
async function visibleCatalogSources(client: KubeClient, namespace: string, catalogNamespace: string): Promise<CatalogRef[]> {
  const namespaces = namespace === catalogNamespace ? [namespace] : [namespace, catalogNamespace];
  const lists = await Promise.all(namespaces.map((each) => client.list(catalogSourceKind, { namespace: each })));
  return lists.flatMap((list) => list.items.map((catalog) => ({ name: catalog.metadata!.name!, namespace: catalog.metadata!.namespace! })));
}

const catalogOf = (manifest: Manifest): CatalogRef => ({ name: manifest.status.catalogSource, namespace: manifest.status.catalogSourceNamespace });
const catalogName = (catalog: CatalogRef): string => `${catalog.namespace}/${catalog.name}`;

function listSome(names: readonly string[]): string {
  if (names.length === 0) return 'no packages';
  return names.length <= 12 ? names.join(', ') : `${names.slice(0, 12).join(', ')} and ${names.length - 12} more`;
}


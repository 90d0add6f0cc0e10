import { OlmError } from '@olm/core';
import type {
  CatalogBundle,
  CatalogChannel,
  CatalogContent,
  CatalogPackage,
  ChannelEntry,
  DeprecationEntry,
  Property,
  RelatedImage,
} from '@olm/core';
import type { ApiBundle, ApiPackage } from './api-types.js';
import type { RegistryClient } from './client.js';
import { RegistryGrpcErrorCodes } from './errors.js';
import { asRecord } from './model-to-api.js';

export interface LoadFromRegistryOptions {
  /**
   * Fetch each bundle's manifests with `GetBundle` when `ListBundles` left them out (bundles with
   * an image), to restore `olm.bundle.object` / `olm.csv.metadata`, related images and the package
   * icon. Default true; false keeps to one `ListBundles` call plus one `GetPackage` per package.
   */
  readonly manifests?: boolean;
  /** Concurrent `GetBundle` calls. Default 16. */
  readonly concurrency?: number;
}

interface BundleDraft {
  api: ApiBundle;
  channels: string[];
  /** The bundle built from `api` as soon as its manifests are in (the manifest text is then let go). */
  built?: { bundle: CatalogBundle; icon?: CatalogPackage['icon'] } | { error: unknown };
}

/**
 * Rebuilds the in-memory catalog from a registry server (ours or `opm serve`): packages and
 * channel heads from `ListPackages` + `GetPackage`, channel entries and bundles from `ListBundles`
 * (one message per channel membership), manifests from `GetBundle` (see `manifests`).
 *
 * What the API cannot carry stays absent: package `description` and `properties`, channel
 * `properties`. Bundles served by an old sqlite registry (no `properties`) get theirs rebuilt from
 * `version`, `providedApis`, `requiredApis` and `dependencies`, as upstream does.
 */
export async function loadCatalogFromRegistry(client: RegistryClient, options: LoadFromRegistryOptions = {}): Promise<CatalogContent> {
  const packageNames = (await client.listPackages()).sort();
  const apiPackages = new Map<string, ApiPackage>();
  for (const name of packageNames) apiPackages.set(name, await client.getPackage(name));

  const entriesByChannel = new Map<string, Map<string, ChannelEntry[]>>();
  const drafts = new Map<string, Map<string, BundleDraft>>();
  for await (const bundle of client.listBundles({ deadlineMs: 300_000 })) {
    if (!apiPackages.has(bundle.packageName)) {
      throw new OlmError(
        RegistryGrpcErrorCodes.badResponse,
        `registry ${client.address} listed bundle "${bundle.csvName}" of package "${bundle.packageName}", which ListPackages did not name`,
      );
    }
    const channels = mapOf(entriesByChannel, bundle.packageName);
    const entries = channels.get(bundle.channelName) ?? [];
    channels.set(bundle.channelName, entries);
    entries.push({
      name: bundle.csvName,
      ...(bundle.replaces ? { replaces: bundle.replaces } : {}),
      ...(bundle.skips.length > 0 ? { skips: [...bundle.skips] } : {}),
      ...(bundle.skipRange ? { skipRange: bundle.skipRange } : {}),
    });
    const bundles = mapOf(drafts, bundle.packageName);
    const draft = bundles.get(bundle.csvName);
    if (draft) {
      draft.channels.push(bundle.channelName);
      if (draft.api.csvJson === '' && bundle.csvJson !== '') draft.api = bundle;
    } else {
      bundles.set(bundle.csvName, { api: bundle, channels: [bundle.channelName] });
    }
  }

  if (options.manifests ?? true) {
    const missing = [...drafts.values()].flatMap((bundles) => [...bundles.values()]).filter((draft) => draft.api.csvJson === '' && draft.api.object.length === 0);
    await forEachLimited(missing, options.concurrency ?? 16, async (draft) => {
      const full = await client.getBundle(draft.api.packageName, draft.channels[0] ?? '', draft.api.csvName);
      // Built at once, so that the manifest text of hundreds of bundles (on a large catalog, most of its
      // bytes, and sent as both csvJson and object) is never held all at the same time.
      draft.built = build({ ...draft.api, csvJson: full.csvJson, object: full.object });
    });
  }

  const packages = new Map<string, CatalogPackage>();
  for (const [name, apiPackage] of apiPackages) {
    const bundleDrafts = drafts.get(name) ?? new Map<string, BundleDraft>();
    const deprecations: DeprecationEntry[] = [];
    if (apiPackage.deprecation) deprecations.push({ reference: { schema: 'olm.package' }, message: apiPackage.deprecation.message });
    const channels = new Map<string, CatalogChannel>();
    for (const channel of apiPackage.channels) {
      channels.set(channel.name, { name: channel.name, package: name, entries: entriesByChannel.get(name)?.get(channel.name) ?? [] });
      if (channel.deprecation) deprecations.push({ reference: { schema: 'olm.channel', name: channel.name }, message: channel.deprecation.message });
    }
    let icon: CatalogPackage['icon'];
    const bundles = new Map<string, CatalogBundle>();
    for (const [bundleName, draft] of [...bundleDrafts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const built = draft.built ?? build(draft.api);
      // A bundle that cannot be rebuilt fails the load, the first in name order (whatever answered first).
      if ('error' in built) throw built.error;
      bundles.set(bundleName, built.bundle);
      icon ??= built.icon;
      if (draft.api.deprecation) deprecations.push({ reference: { schema: 'olm.bundle', name: bundleName }, message: draft.api.deprecation.message });
    }
    packages.set(name, {
      name,
      defaultChannel: apiPackage.defaultChannelName,
      ...(icon ? { icon } : {}),
      channels,
      bundles,
      ...(deprecations.length > 0 ? { deprecations } : {}),
    });
  }
  return { packages };
}

function build(api: ApiBundle): NonNullable<BundleDraft['built']> {
  try {
    return apiBundleToCatalogBundle(api);
  } catch (error) {
    return { error };
  }
}

/** One API bundle back to the model (and the package icon a synthesised CSV carries). */
export function apiBundleToCatalogBundle(api: ApiBundle): { bundle: CatalogBundle; icon?: CatalogPackage['icon'] } {
  const properties: Property[] = api.properties.map((property) => ({ type: property.type, value: parseJson(property.value, api, property.type) }));
  addLegacyProperties(api, properties);

  let csv: Record<string, unknown> | undefined;
  if (api.csvJson !== '') csv = asRecord(parseJson(api.csvJson, api, 'csvJson'));
  const spec = asRecord(csv?.spec);
  let icon: CatalogPackage['icon'];
  if (csv && isSynthesisedCsv(api, spec)) {
    properties.push({ type: 'olm.csv.metadata', value: csvMetadataFromCsv(csv) });
    const first = asRecord(Array.isArray(spec.icon) ? spec.icon[0] : undefined);
    if (typeof first.base64data === 'string' && typeof first.mediatype === 'string') {
      icon = { base64data: first.base64data, mediatype: first.mediatype };
    }
  } else {
    for (const object of api.object) {
      properties.push({ type: 'olm.bundle.object', value: { data: Buffer.from(object, 'utf8').toString('base64') } });
    }
  }
  const relatedImages: RelatedImage[] = (Array.isArray(spec.relatedImages) ? spec.relatedImages : []).map((image) => {
    const fields = asRecord(image);
    return { name: typeof fields.name === 'string' ? fields.name : '', image: typeof fields.image === 'string' ? fields.image : '' };
  });

  const packageValue = asRecord(properties.find((property) => property.type === 'olm.package')?.value);
  const bundle: CatalogBundle = {
    name: api.csvName,
    package: api.packageName,
    image: api.bundlePath,
    version: typeof packageValue.version === 'string' ? packageValue.version : api.version,
    ...(typeof packageValue.release === 'string' && packageValue.release !== '' ? { release: packageValue.release } : {}),
    properties,
    ...(relatedImages.length > 0 ? { relatedImages } : {}),
  };
  return icon ? { bundle, icon } : { bundle };
}

/**
 * A CSV the server synthesised from `olm.csv.metadata` is the only object and has a stub install
 * strategy without deployments (a real bundle's CSV always lists its deployments).
 */
function isSynthesisedCsv(api: ApiBundle, spec: Record<string, unknown>): boolean {
  const deployments = asRecord(asRecord(spec.install).spec).deployments;
  return (api.object.length === 0 || (api.object.length === 1 && api.object[0] === api.csvJson)) && !Array.isArray(deployments);
}

/** The `olm.csv.metadata` value a synthesised CSV was built from. */
function csvMetadataFromCsv(csv: Record<string, unknown>): Record<string, unknown> {
  const metadata = asRecord(csv.metadata);
  const spec = asRecord(csv.spec);
  const value: Record<string, unknown> = {};
  const copy = (key: string, from: unknown): void => {
    if (from !== undefined) value[key] = from;
  };
  copy('annotations', metadata.annotations);
  copy('apiServiceDefinitions', spec.apiservicedefinitions);
  copy('crdDescriptions', spec.customresourcedefinitions);
  copy('description', spec.description);
  copy('displayName', spec.displayName);
  copy('installModes', spec.installModes);
  copy('keywords', spec.keywords);
  copy('labels', metadata.labels);
  copy('links', spec.links);
  copy('maintainers', spec.maintainers);
  copy('maturity', spec.maturity);
  copy('minKubeVersion', spec.minKubeVersion);
  copy('nativeAPIs', spec.nativeAPIs);
  copy('provider', spec.provider);
  return value;
}

/**
 * Sqlite-era servers send no `properties`: rebuild them from the typed fields, as OLM does
 * (`olm.gvk` dependencies are the `requiredApis` already).
 */
function addLegacyProperties(api: ApiBundle, properties: Property[]): void {
  const has = (type: string, matches: (value: Record<string, unknown>) => boolean): boolean =>
    properties.some((property) => property.type === type && matches(asRecord(property.value)));
  if (!properties.some((property) => property.type === 'olm.package')) {
    properties.push({ type: 'olm.package', value: { packageName: api.packageName, version: api.version } });
  }
  const sameGvk = (gvk: { group: string; version: string; kind: string }) => (value: Record<string, unknown>) =>
    value.group === gvk.group && value.version === gvk.version && value.kind === gvk.kind;
  for (const gvk of api.providedApis) {
    if (!has('olm.gvk', sameGvk(gvk))) properties.push({ type: 'olm.gvk', value: { group: gvk.group, kind: gvk.kind, version: gvk.version } });
  }
  for (const gvk of api.requiredApis) {
    if (!has('olm.gvk.required', sameGvk(gvk))) {
      properties.push({ type: 'olm.gvk.required', value: { group: gvk.group, kind: gvk.kind, version: gvk.version } });
    }
  }
  for (const dependency of api.dependencies) {
    if (dependency.type === 'olm.package') {
      const value = asRecord(parseJson(dependency.value, api, 'dependency'));
      const packageName = typeof value.packageName === 'string' ? value.packageName : '';
      const versionRange = typeof value.version === 'string' ? value.version : '';
      if (!has('olm.package.required', (required) => required.packageName === packageName && required.versionRange === versionRange)) {
        properties.push({ type: 'olm.package.required', value: { packageName, versionRange } });
      }
    } else if (dependency.type === 'olm.label' || dependency.type === 'olm.constraint') {
      // As OLM reads sqlite-era dependencies: a label becomes `olm.label.required`, a constraint stays one.
      const type = dependency.type === 'olm.label' ? 'olm.label.required' : 'olm.constraint';
      const value = parseJson(dependency.value, api, 'dependency');
      const text = JSON.stringify(value);
      if (!properties.some((property) => property.type === type && JSON.stringify(property.value) === text)) properties.push({ type, value });
    }
  }
}

function parseJson(text: string, api: ApiBundle, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new OlmError(
      RegistryGrpcErrorCodes.badResponse,
      `bundle "${api.csvName}" of package "${api.packageName}": ${what} is not JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function mapOf<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}

async function forEachLimited<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await run(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

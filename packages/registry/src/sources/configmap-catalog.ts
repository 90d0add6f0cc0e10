import { OlmError } from '@olm/core';
import type { CatalogBundle, CatalogChannel, CatalogContent, CatalogPackage, ChannelEntry, Property, RelatedImage } from '@olm/core';
import { configMapInvalid } from './errors.js';
import { loadMeasuredYamlDocument } from '../parse-file.js';
import { CatalogBudget } from '../catalog-limits.js';
import type { CatalogLimits } from '../catalog-limits.js';

/** The ConfigMap keys of an upstream ConfigMap catalog, each a YAML list. */
export const configMapCatalogKeys = {
  crds: 'customResourceDefinitions',
  csvs: 'clusterServiceVersions',
  packages: 'packages',
} as const;

type Json = Record<string, unknown>;

/** Charges decoded bytes to the catalog's budget; throws `OLM_REGISTRY_CONFIGMAP_INVALID` past a limit. */
type Admit = (decodedBytes: number, what: string) => void;

function budgetFor(where: string, limits: Partial<CatalogLimits> | undefined): Admit {
  const budget = new CatalogBudget(limits);
  return (decodedBytes, what) => {
    const refused = budget.charge(decodedBytes, what);
    if (refused !== undefined) throw configMapInvalid(`${where}: ${refused.message}`, { limit: refused.limit, hint: refused.hint });
  };
}

/**
 * Builds the catalog model from an upstream ConfigMap catalog's `data` (what the configmap
 * registry server loads): CRDs are attached to the CSVs that own them, each package manifest's
 * channels are walked from `currentCSV` along `spec.replaces`, and each CSV becomes a bundle with
 * the properties `opm` derives from a CSV (`olm.package`, `olm.gvk`, `olm.gvk.required`, the
 * `olm.properties` annotation) plus its manifests as `olm.bundle.object`. Bundles have no image.
 */
export function catalogFromConfigMapData(
  data: Readonly<Record<string, string>>,
  where = 'configmap',
  options: { readonly limits?: Partial<CatalogLimits> } = {},
): CatalogContent {
  // The ConfigMap counts as one catalog file: each list item and each CSV's manifests (which repeat
  // the CRDs it owns) are charged, so aliases and shared CRDs cannot add up past the limits.
  const admit = budgetFor(where, options.limits);
  const crds = readList(data, configMapCatalogKeys.crds, where, admit);
  const csvs = readList(data, configMapCatalogKeys.csvs, where, admit);
  const manifests = readList(data, configMapCatalogKeys.packages, where, admit);

  const crdsByKey = new Map<string, Json>();
  for (const crd of crds) {
    const spec = record(crd.spec);
    const names = record(spec.names);
    const versions = Array.isArray(spec.versions) && spec.versions.length > 0
      ? spec.versions.map((version) => text(record(version).name))
      : [text(spec.version)];
    for (const version of versions) {
      const key = apiKey(text(spec.group), version, text(names.kind), text(names.plural));
      if (crdsByKey.has(key)) throw configMapInvalid(`${where}: can't add the same CRD twice in one configmap (${key})`, { key });
      crdsByKey.set(key, crd);
    }
  }

  const csvsByName = new Map<string, Json>();
  for (const csv of csvs) {
    const name = text(record(csv.metadata).name);
    if (name === '') throw configMapInvalid(`${where}: a ClusterServiceVersion in ${configMapCatalogKeys.csvs} has no metadata.name`);
    csvsByName.set(name, csv);
  }

  const packages = new Map<string, CatalogPackage>();
  for (const manifest of manifests) {
    const packageName = text(manifest.packageName);
    if (packageName === '') throw configMapInvalid(`${where}: a package manifest in ${configMapCatalogKeys.packages} has no packageName`);
    const channelList = Array.isArray(manifest.channels) ? manifest.channels.map(record) : [];
    const channels = new Map<string, CatalogChannel>();
    const bundles = new Map<string, CatalogBundle>();
    for (const channelManifest of channelList) {
      const channelName = text(channelManifest.name);
      const entries = walkChannel(packageName, channelName, text(channelManifest.currentCSV), csvsByName, where);
      for (const entry of entries) {
        if (!bundles.has(entry.name)) {
          bundles.set(entry.name, bundleFromCsv(packageName, csvsByName.get(entry.name) as Json, crdsByKey, where, admit));
        }
      }
      channels.set(channelName, { name: channelName, package: packageName, entries });
    }
    const defaultChannel = text(manifest.defaultChannel) || (channelList.length === 1 ? text(channelList[0]?.name) : '');
    const head = channels.get(defaultChannel)?.entries[0]?.name;
    const headSpec = record(record(head ? csvsByName.get(head) : undefined).spec);
    const icon = record(Array.isArray(headSpec.icon) ? headSpec.icon[0] : undefined);
    packages.set(packageName, {
      name: packageName,
      defaultChannel,
      ...(typeof headSpec.description === 'string' && headSpec.description !== '' ? { description: headSpec.description } : {}),
      ...(typeof icon.base64data === 'string' && typeof icon.mediatype === 'string'
        ? { icon: { base64data: icon.base64data, mediatype: icon.mediatype } }
        : {}),
      channels,
      bundles,
    });
  }
  return { packages };
}

/** The channel's entries from its head, following `spec.replaces` while the replaced CSV is present. */
function walkChannel(packageName: string, channelName: string, currentCsv: string, csvs: ReadonlyMap<string, Json>, where: string): ChannelEntry[] {
  if (!csvs.has(currentCsv)) {
    throw configMapInvalid(
      `${where}: package "${packageName}", channel "${channelName}": currentCSV "${currentCsv}" is not in ${configMapCatalogKeys.csvs}`,
      { package: packageName, channel: channelName },
    );
  }
  const entries: ChannelEntry[] = [];
  const seen = new Set<string>();
  let name: string | undefined = currentCsv;
  while (name !== undefined && csvs.has(name)) {
    if (seen.has(name)) {
      throw configMapInvalid(`${where}: package "${packageName}", channel "${channelName}": replaces cycle at "${name}"`, {
        package: packageName,
        channel: channelName,
      });
    }
    seen.add(name);
    const csv = csvs.get(name) as Json;
    const spec = record(csv.spec);
    const replaces = text(spec.replaces);
    const skips = Array.isArray(spec.skips) ? spec.skips.filter((skip): skip is string => typeof skip === 'string') : [];
    const skipRange = text(record(record(csv.metadata).annotations)['olm.skipRange']);
    entries.push({
      name,
      ...(replaces ? { replaces } : {}),
      ...(skips.length > 0 ? { skips } : {}),
      ...(skipRange ? { skipRange } : {}),
    });
    name = replaces || undefined;
  }
  return entries;
}

function bundleFromCsv(packageName: string, csv: Json, crdsByKey: ReadonlyMap<string, Json>, where: string, admit: Admit): CatalogBundle {
  const metadata = record(csv.metadata);
  const name = text(metadata.name);
  const spec = record(csv.spec);
  const version = text(spec.version);
  const properties: Property[] = [{ type: 'olm.package', value: { packageName, version } }];
  const objects: Json[] = [csv];

  const crdSection = record(spec.customresourcedefinitions);
  const apiSection = record(spec.apiservicedefinitions);
  const owned = list(crdSection.owned);
  for (const crd of owned) {
    const [plural = '', group = ''] = splitOnce(text(crd.name));
    if (group === '') throw configMapInvalid(`${where}: CSV "${name}": error parsing owned name "${text(crd.name)}"`, { csv: name });
    properties.push({ type: 'olm.gvk', value: { group, kind: text(crd.kind), version: text(crd.version) } });
    const found = crdsByKey.get(apiKey(group, text(crd.version), text(crd.kind), plural));
    if (found && !objects.includes(found)) objects.push(found);
  }
  for (const api of list(apiSection.owned)) {
    properties.push({ type: 'olm.gvk', value: { group: text(api.group), kind: text(api.kind), version: text(api.version) } });
  }
  for (const crd of list(crdSection.required)) {
    const [, group = ''] = splitOnce(text(crd.name));
    properties.push({ type: 'olm.gvk.required', value: { group, kind: text(crd.kind), version: text(crd.version) } });
  }
  for (const api of list(apiSection.required)) {
    properties.push({ type: 'olm.gvk.required', value: { group: text(api.group), kind: text(api.kind), version: text(api.version) } });
  }
  const annotated = record(metadata.annotations)['olm.properties'];
  if (typeof annotated === 'string' && annotated.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(annotated);
    } catch (error) {
      throw configMapInvalid(`${where}: CSV "${name}": annotation olm.properties is not JSON: ${(error as Error).message}`, { csv: name }, error);
    }
    for (const property of Array.isArray(parsed) ? parsed : []) {
      const fields = record(property);
      if (typeof fields.type === 'string') properties.push({ type: fields.type, value: fields.value });
    }
  }
  for (const object of objects) {
    const json = JSON.stringify(object);
    admit(json.length, `the manifests of CSV "${name}"`);
    properties.push({ type: 'olm.bundle.object', value: { data: Buffer.from(json, 'utf8').toString('base64') } });
  }
  const relatedImages: RelatedImage[] = list(spec.relatedImages).map((image) => ({ name: text(image.name), image: text(image.image) }));
  return {
    name,
    package: packageName,
    image: '',
    version,
    properties,
    ...(relatedImages.length > 0 ? { relatedImages } : {}),
  };
}

function readList(data: Readonly<Record<string, string>>, key: string, where: string, admit: Admit): Json[] {
  const raw = data[key];
  if (raw === undefined) throw configMapInvalid(`${where}: couldn't find expected key ${key} in configmap`, { key });
  let parsed: unknown;
  try {
    const loaded = loadMeasuredYamlDocument(raw);
    parsed = loaded.value;
    admit(loaded.decodedBytes, `key ${key}`);
  } catch (error) {
    if (error instanceof OlmError) throw error;
    throw configMapInvalid(`${where}: error parsing ${key}: ${(error as Error).message}`, { key }, error);
  }
  if (parsed === null || parsed === undefined) return [];
  if (!Array.isArray(parsed)) throw configMapInvalid(`${where}: ${key} must be a YAML list`, { key });
  for (let index = 0; index < parsed.length; index += 1) admit(0, `${key}[${index}]`);
  return parsed.map(record);
}

function apiKey(group: string, version: string, kind: string, plural: string): string {
  return `${group}/${version}/${kind}/${plural}`;
}

function splitOnce(value: string): [string, string] | [string] {
  const dot = value.indexOf('.');
  return dot < 0 ? [value] : [value.slice(0, dot), value.slice(dot + 1)];
}

function record(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(record) : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

import type { APIServiceDescription, CRDDescription, GroupVersionKind, InstallMode } from '@olm/api';
import type { AppLink, CsvDescription, Icon, Maintainer } from './package-manifest.js';

/** A CSV as it arrives from a registry (`csvJson`): foreign JSON, checked field by field. */
export interface ParsedCsv {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly provider: AppLink;
  readonly description: CsvDescription;
}

type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(object).filter((item): item is Json => item !== undefined) : [];
}
function stringMap(value: unknown): Record<string, string> | undefined {
  const fields = object(value);
  if (!fields) return undefined;
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(fields)) if (typeof entry === 'string') out[key] = entry;
  return Object.keys(out).length > 0 ? out : undefined;
}
function nonEmpty<T>(items: T[]): T[] | undefined {
  return items.length > 0 ? items : undefined;
}
/** Adds `key: value` only when value is set, as Go's `omitempty` leaves empty fields out. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function appLink(value: unknown): AppLink {
  const fields = object(value) ?? {};
  return { ...optional('name', text(fields['name'])), ...optional('url', text(fields['url'])) };
}

/** CRD descriptions keep only what a catalog page shows (upstream drops descriptors and resources). */
function crdDescriptions(value: unknown): CRDDescription[] | undefined {
  return nonEmpty(
    list(value).map((crd) => ({
      name: String(crd['name'] ?? ''),
      version: String(crd['version'] ?? ''),
      kind: String(crd['kind'] ?? ''),
      ...optional('displayName', text(crd['displayName'])),
      ...optional('description', text(crd['description'])),
    })),
  );
}

function apiServiceDescriptions(value: unknown): APIServiceDescription[] | undefined {
  return nonEmpty(
    list(value).map((api) => ({
      name: String(api['name'] ?? ''),
      group: String(api['group'] ?? ''),
      version: String(api['version'] ?? ''),
      kind: String(api['kind'] ?? ''),
      ...optional('displayName', text(api['displayName'])),
      ...optional('description', text(api['description'])),
    })),
  );
}

/**
 * Images the operator runs: every container and init container of the `deployment` install
 * strategy, plus `spec.relatedImages`, deduplicated and sorted (upstream's order is a Go map's).
 */
export function relatedImagesOf(spec: Json): string[] {
  const images = new Set<string>();
  const install = object(spec['install']);
  if (install?.['strategy'] === 'deployment') {
    for (const deployment of list(object(install['spec'])?.['deployments'])) {
      const podSpec = object(object(object(deployment['spec'])?.['template'])?.['spec']);
      for (const field of ['containers', 'initContainers']) {
        for (const container of list(podSpec?.[field])) {
          const image = text(container['image']);
          if (image !== undefined) images.add(image);
        }
      }
    }
  }
  for (const related of list(spec['relatedImages'])) {
    const image = text(related['image']);
    if (image !== undefined) images.add(image);
  }
  return [...images].sort();
}

/**
 * Reads a registry's `csvJson` into the channel head description upstream serves
 * (`CreateCSVDescription`). Throws on text that is not a JSON object, as upstream's unmarshal fails.
 */
export function parseCsv(csvJson: string): ParsedCsv {
  let document: unknown;
  try {
    document = JSON.parse(csvJson);
  } catch (error) {
    throw new Error(`the CSV is not valid JSON: ${(error as Error).message}`);
  }
  const csv = object(document);
  if (!csv) throw new Error('the CSV is not a JSON object');
  const metadata = object(csv['metadata']) ?? {};
  const spec = object(csv['spec']) ?? {};
  const provider = appLink(spec['provider']);
  const crds = object(spec['customresourcedefinitions']) ?? {};
  const apis = object(spec['apiservicedefinitions']) ?? {};
  const icons: Icon[] = list(spec['icon']).map((icon) => ({
    ...optional('base64data', text(icon['base64data'])),
    ...optional('mediatype', text(icon['mediatype'])),
  }));
  const maintainers: Maintainer[] = list(spec['maintainers']).map((maintainer) => ({
    ...optional('name', text(maintainer['name'])),
    ...optional('email', text(maintainer['email'])),
  }));
  const installModes: InstallMode[] = list(spec['installModes']).map((mode) => ({ type: String(mode['type'] ?? ''), supported: mode['supported'] === true }));
  const nativeApis: GroupVersionKind[] = list(spec['nativeAPIs']).map((gvk) => ({
    group: String(gvk['group'] ?? ''),
    version: String(gvk['version'] ?? ''),
    kind: String(gvk['kind'] ?? ''),
  }));
  const keywords = Array.isArray(spec['keywords']) ? spec['keywords'].filter((keyword): keyword is string => typeof keyword === 'string') : [];
  const description: CsvDescription = {
    ...optional('displayName', text(spec['displayName'])),
    ...optional('icon', nonEmpty(icons)),
    ...optional('version', text(spec['version'])),
    provider,
    ...optional('annotations', stringMap(metadata['annotations'])),
    ...optional('keywords', nonEmpty(keywords)),
    ...optional('links', nonEmpty(list(spec['links']).map(appLink))),
    ...optional('maintainers', nonEmpty(maintainers)),
    ...optional('maturity', text(spec['maturity'])),
    ...optional('description', text(spec['description'])),
    ...optional('installModes', nonEmpty(installModes)),
    customresourcedefinitions: { ...optional('owned', crdDescriptions(crds['owned'])), ...optional('required', crdDescriptions(crds['required'])) },
    apiservicedefinitions: { ...optional('owned', apiServiceDescriptions(apis['owned'])), ...optional('required', apiServiceDescriptions(apis['required'])) },
    ...optional('nativeApis', nonEmpty(nativeApis)),
    ...optional('minKubeVersion', text(spec['minKubeVersion'])),
    ...optional('relatedImages', nonEmpty(relatedImagesOf(spec))),
  };
  return { name: String(metadata['name'] ?? ''), labels: stringMap(metadata['labels']) ?? {}, provider, description };
}

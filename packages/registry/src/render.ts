import type {
  DeclarativeConfig,
  FbcBundle,
  FbcChannel,
  FbcDeprecation,
  FbcPackage,
  FbcProperty,
  Meta,
} from './declarative-config.js';
import { compareStrings, emitGoYaml, goJson, sortMapKeys } from '@olm/go-format';


/**
 * `opm render` of a loaded catalog: the normalised FBC stream. Per package (sorted by name): its
 * olm.package blob, channels by name, bundles by name, other schemas (stable by schema), its
 * deprecations; then blobs that belong to no package. JSON is a stream of 4-space-indented
 * objects (struct field order as upstream, property values with sorted keys); YAML is one `---`
 * document per blob with keys sorted at every level. Rendering the output again gives the same bytes.
 */
export type RenderFormat = 'json' | 'yaml';

type Blob = Record<string, unknown>;

function propertiesOf(properties: readonly FbcProperty[]): Blob[] {
  return properties.map((property) => ({ type: property.type, value: sortMapKeys(property.value ?? null) }));
}

function canonicalBase64(text: string): string {
  return Buffer.from(text, 'base64').toString('base64');
}

function packageBlob(item: FbcPackage): Blob {
  const blob: Blob = { schema: item.schema, name: item.name, defaultChannel: item.defaultChannel };
  if (item.icon !== undefined) blob.icon = { base64data: canonicalBase64(item.icon.base64data), mediatype: item.icon.mediatype };
  if (item.description !== '') blob.description = item.description;
  if (item.properties.length > 0) blob.properties = propertiesOf(item.properties);
  return blob;
}

function channelBlob(item: FbcChannel): Blob {
  const blob: Blob = {
    schema: item.schema,
    name: item.name,
    package: item.package,
    entries: item.entries.map((entry) => {
      const out: Blob = { name: entry.name };
      if (entry.replaces !== '') out.replaces = entry.replaces;
      if (entry.skips.length > 0) out.skips = entry.skips;
      if (entry.skipRange !== '') out.skipRange = entry.skipRange;
      return out;
    }),
  };
  if (item.properties.length > 0) blob.properties = propertiesOf(item.properties);
  return blob;
}

function bundleBlob(item: FbcBundle): Blob {
  const blob: Blob = { schema: item.schema };
  if (item.name !== '') blob.name = item.name;
  if (item.package !== '') blob.package = item.package;
  blob.image = item.image;
  if (item.properties.length > 0) blob.properties = propertiesOf(item.properties);
  if (item.relatedImages.length > 0) blob.relatedImages = item.relatedImages.map((image) => ({ name: image.name, image: image.image }));
  return blob;
}

function deprecationBlob(item: FbcDeprecation): Blob {
  return {
    schema: item.schema,
    package: item.package,
    entries: item.entries.map((entry) => ({
      reference: entry.reference.name === '' ? { schema: entry.reference.schema } : { schema: entry.reference.schema, name: entry.reference.name },
      message: entry.message,
    })),
  };
}

/** The blobs of a config in upstream's render order. */
export function renderOrder(config: DeclarativeConfig): Blob[] {
  const names = new Set<string>();
  const group = <T>(items: readonly T[], packageOf: (item: T) => string): Map<string, T[]> => {
    const map = new Map<string, T[]>();
    for (const item of items) {
      const name = packageOf(item);
      names.add(name);
      map.set(name, [...(map.get(name) ?? []), item]);
    }
    return map;
  };
  const packages = group(config.packages, (item) => item.name);
  const channels = group(config.channels, (item) => item.package);
  const bundles = group(config.bundles, (item) => item.package);
  const others = group(config.others, (item) => item.package);
  const deprecations = group(config.deprecations, (item) => item.package);
  const blobs: Blob[] = [];
  for (const name of [...names].sort(compareStrings)) {
    if (name === '') continue;
    for (const item of packages.get(name) ?? []) blobs.push(packageBlob(item));
    for (const item of [...(channels.get(name) ?? [])].sort((a, b) => compareStrings(a.name, b.name))) blobs.push(channelBlob(item));
    for (const item of [...(bundles.get(name) ?? [])].sort((a, b) => compareStrings(a.name, b.name))) blobs.push(bundleBlob(item));
    const packageOthers = [...(others.get(name) ?? [])].sort((a: Meta, b: Meta) => compareStrings(a.schema, b.schema));
    for (const item of packageOthers) blobs.push(sortMapKeys(item.blob) as Blob);
    for (const item of deprecations.get(name) ?? []) blobs.push(deprecationBlob(item));
  }
  for (const item of others.get('') ?? []) blobs.push(sortMapKeys(item.blob) as Blob);
  return blobs;
}

/** One blob as upstream's JSON encoder writes it (4-space indent, no HTML escaping, newline). */
export function renderJsonBlob(blob: unknown): string {
  return `${goJson(blob, { sortMapKeys: false, escapeHtml: false, indent: 4 })}\n`;
}

/** One blob as upstream's YAML writer does: `---`, then the blob as go-yaml writes it (keys sorted). */
export function renderYamlBlob(blob: unknown): string {
  return `---\n${emitGoYaml(blob)}`;
}

/** Renders a loaded catalog as `opm render` does. */
export function renderCatalog(config: DeclarativeConfig, format: RenderFormat = 'json'): string {
  const render = format === 'json' ? renderJsonBlob : renderYamlBlob;
  return renderOrder(config).map(render).join('');
}

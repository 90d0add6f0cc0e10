import { goJson } from '@olm/go-format';
import type { BlobPosition, Catalog, ModelBundle, ModelChannel, ModelPackage } from '@olm/registry';

/** One FBC object of a catalog as catalogd stores it: its meta keys and its JSON line. */
export interface CatalogObject {
  readonly schema: string;
  readonly package: string;
  readonly name: string;
  /** Compact JSON, keys sorted at every level, no HTML escaping, then `\n`: Go's encoding of the decoded blob. */
  readonly line: string;
}

type Blob = Record<string, unknown>;

interface Placed {
  readonly meta: Omit<CatalogObject, 'line'>;
  readonly blob: unknown;
  readonly file: string;
  readonly index: number;
}

function packageBlob(item: ModelPackage): Blob {
  return {
    schema: 'olm.package',
    name: item.name,
    defaultChannel: item.defaultChannel,
    ...(item.icon === undefined ? {} : { icon: item.icon }),
    ...(item.description === undefined ? {} : { description: item.description }),
    ...(item.properties === undefined || item.properties.length === 0 ? {} : { properties: item.properties }),
  };
}

function channelBlob(item: ModelChannel): Blob {
  return {
    schema: 'olm.channel',
    name: item.name,
    package: item.package,
    entries: item.entries,
    ...(item.properties === undefined || item.properties.length === 0 ? {} : { properties: item.properties }),
  };
}

function bundleBlob(item: ModelBundle): Blob {
  return {
    schema: 'olm.bundle',
    name: item.name,
    package: item.package,
    image: item.image,
    ...(item.properties.length === 0 ? {} : { properties: item.properties }),
    // Most real related images have no name; the model keeps '' for them, the file had no key.
    ...(item.relatedImages === undefined || item.relatedImages.length === 0
      ? {}
      : { relatedImages: item.relatedImages.map((image) => (image.name === '' ? { image: image.image } : image)) }),
  };
}

function deprecationsBlob(item: ModelPackage): Blob {
  return { schema: 'olm.deprecations', package: item.name, entries: item.deprecations ?? [] };
}

function placed(blob: unknown, meta: { schema: string; package: string; name: string }, position: BlobPosition | undefined): Placed {
  return {
    meta,
    blob,
    file: position?.file ?? '\uffff',
    index: position?.index ?? Number.MAX_SAFE_INTEGER,
  };
}

/**
 * Go's `fs.WalkDir` order: a directory's entries by name, each directory walked where it sorts, so
 * `a/x.yaml` comes before `a-b/x.yaml` although `-` sorts before `/` in a plain string comparison.
 */
function compareWalkOrder(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const [x, y] = [left[index]!, right[index]!];
    if (x !== y) return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/**
 * Every FBC object of a loaded catalog in catalogd's order: the order the blobs were read from the
 * catalog's files (directories walked by name, blobs in file order), as catalogd's `WalkMetasFS` stores
 * them. A package's `olm.deprecations` blob has no recorded position in the model; it comes after
 * the other blobs of its package's file.
 */
export function* catalogObjects(catalog: Catalog): Generator<CatalogObject> {
  const all: Placed[] = [];
  for (const item of catalog.packages.values()) {
    all.push(placed(packageBlob(item), { schema: 'olm.package', package: '', name: item.name }, item.position));
    for (const channel of item.channels.values()) {
      all.push(placed(channelBlob(channel), { schema: 'olm.channel', package: item.name, name: channel.name }, channel.position));
    }
    for (const bundle of item.bundles.values()) {
      all.push(placed(bundleBlob(bundle), { schema: 'olm.bundle', package: item.name, name: bundle.name }, bundle.position));
    }
    if (item.deprecations !== undefined) {
      all.push(placed(deprecationsBlob(item), { schema: 'olm.deprecations', package: item.name, name: '' }, { file: item.position?.file ?? '\uffff', index: Number.MAX_SAFE_INTEGER }));
    }
  }
  for (const other of catalog.others) {
    all.push(placed(other.blob, { schema: other.schema, package: other.package, name: other.name }, other.position));
  }
  // Stable: objects at the same place keep the model's (sorted) order.
  all.sort((a, b) => compareWalkOrder(a.file, b.file) || a.index - b.index);
  // Lines are made one at a time: a writer holds one object's JSON, never the whole catalog's.
  for (const entry of all) yield { ...entry.meta, line: `${goJson(entry.blob, { escapeHtml: false })}\n` };
}

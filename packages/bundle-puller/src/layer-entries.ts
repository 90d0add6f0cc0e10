import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { OlmError, describeError } from '@olm/core';
import tarStream from 'tar-stream';
import { BundleUnpackErrorCodes } from './bundle-image-errors.js';
import { BundleImageBudget, defaultBundleImageLimits } from './bundle-image-limits.js';

/** The directories a bundle image's files are read from; other images name theirs (a catalog image's `configs`). */
export const bundleDirectories: readonly string[] = ['manifests', 'metadata'];

export interface TarEntry {
  /** Normalised: no leading `./` or `/`. */
  readonly path: string;
  readonly type: string;
  readonly linkname?: string;
  readonly data: Buffer;
}

/** A layer as stored: its bytes, or a stream of them (`PulledLayer.open`). */
export type LayerSource = { readonly digest: string } & ({ readonly bytes: Buffer } | { open(): AsyncIterable<Uint8Array> });

/** The image root path of a tar entry name, or undefined for names that would leave it (`..`). */
export function normalizeTarPath(name: string): string | undefined {
  const parts: string[] = [];
  for (const part of name.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return undefined;
    parts.push(part);
  }
  return parts.join('/');
}

const isUnder = (path: string, directory: string) => directory === '' || path === directory || path.startsWith(`${directory}/`);
/** Whether a path is one of the kept directories, something in them, or a directory above them. */
const touchesKept = (path: string, directories: readonly string[]) =>
  path === '' || directories.some((directory) => isUnder(path, directory) || directory.startsWith(`${path}/`));

/** Whether an entry can change what ends up in the kept directories: everything else is skipped unread. */
function matters(path: string, directories: readonly string[]): boolean {
  const slash = path.lastIndexOf('/');
  const directory = slash === -1 ? '' : path.slice(0, slash);
  const base = path.slice(slash + 1);
  if (base === '.wh..wh..opq') return touchesKept(directory, directories);
  if (base.startsWith('.wh.')) return touchesKept((directory ? `${directory}/` : '') + base.slice('.wh.'.length), directories);
  return path !== '' && touchesKept(path, directories);
}

const isZlibError = (error: unknown) => String((error as { code?: unknown }).code ?? '').startsWith('Z_');

/** The tar bytes of a layer, decompressed as they stream when gzip (by its magic bytes), each counted against the image's uncompressed bytes. */
async function* tarBytes(source: AsyncIterable<Uint8Array>, what: string, budget: BundleImageBudget): AsyncGenerator<Buffer> {
  const iterator = source[Symbol.asyncIterator]();
  // enough bytes to tell gzip and zstd by their magic
  const head: Buffer[] = [];
  let headLength = 0;
  let ended = false;
  while (headLength < 4) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(Buffer.from(next.value));
    headLength += next.value.byteLength;
  }
  const start = Buffer.concat(head);
  if (start[0] === 0x28 && start[1] === 0xb5 && start[2] === 0x2f && start[3] === 0xfd) {
    await iterator.return?.();
    throw new OlmError(BundleUnpackErrorCodes.badLayer, `${what} is zstd-compressed, which is not supported; rebuild the bundle image with gzip or uncompressed layers`);
  }
  const rest = async function* () {
    yield start;
    if (!ended) yield* { [Symbol.asyncIterator]: () => iterator };
  };
  const gzipped = start[0] === 0x1f && start[1] === 0x8b;
  const input = Readable.from(rest(), { objectMode: false });
  const output = gzipped ? pipeline(input, createGunzip(), () => undefined) : input;
  try {
    for await (const chunk of output as AsyncIterable<Buffer>) {
      budget.addUncompressed(chunk.byteLength, what);
      yield chunk;
    }
  } catch (error) {
    if (gzipped && isZlibError(error)) throw new OlmError(BundleUnpackErrorCodes.badLayer, `${what} could not be decompressed: ${describeError(error)}; rebuild and push the bundle image`);
    throw error;
  }
}

/**
 * Reads a layer (gzip-compressed, whatever the media type says, or plain tar) as a stream, keeping
 * only the entries that can change `manifests/` or `metadata/`. Each kept entry is checked against
 * the image's limits from its tar header before its content is read; the rest are skipped unread,
 * so no more than one chunk of them is ever held. The budget is shared by all layers of an image.
 */
export async function readLayerEntries(
  layer: Buffer | AsyncIterable<Uint8Array>,
  what: string,
  budget = new BundleImageBudget(defaultBundleImageLimits, what),
  directories: readonly string[] = bundleDirectories,
): Promise<TarEntry[]> {
  const source = Buffer.isBuffer(layer) ? [layer] : layer;
  const extract = tarStream.extract();
  const entries: TarEntry[] = [];
  let feedError: unknown;
  const closed = new Promise<void>((resolve) => extract.once('close', () => resolve()));
  const feeding = (async () => {
    try {
      for await (const chunk of tarBytes(Readable.from(source), what, budget)) {
        if (extract.destroyed) return;
        // wait for the tar reader to take it in (or to stop), so unread bytes never pile up
        if (!extract.write(chunk)) await Promise.race([new Promise<void>((resolve) => extract.once('drain', () => resolve())), closed]);
      }
      extract.end(undefined);
    } catch (error) {
      feedError = error;
      extract.destroy(error as Error);
    }
  })();
  try {
    for await (const entry of extract) {
      const path = normalizeTarPath(entry.header.name);
      if (path === undefined || !matters(path, directories)) {
        for await (const _skipped of entry);
        continue;
      }
      budget.addKeptEntry(entry.header.size ?? 0, `file ${path} of ${what}`);
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      entries.push({
        path,
        type: entry.header.type ?? 'file',
        ...(entry.header.linkname ? { linkname: entry.header.linkname } : {}),
        data: Buffer.concat(chunks),
      });
    }
  } catch (error) {
    extract.destroy();
    await feeding;
    if (feedError !== undefined) throw feedError;
    if (error instanceof OlmError) throw error;
    throw new OlmError(BundleUnpackErrorCodes.badLayer, `${what} is not a readable tar archive: ${describeError(error)}; rebuild and push the bundle image`);
  }
  await feeding;
  if (feedError !== undefined) throw feedError;
  return entries;
}

/**
 * Lays one layer over the files of the layers below, as a container runtime does: its whiteouts
 * (`.wh.<name>` removes `<name>`, `.wh..wh..opq` empties its directory) apply to the lower layers
 * only, then its files replace theirs. Only `manifests/` and `metadata/` are kept.
 */
export function applyLayer(files: Map<string, Buffer>, entries: readonly TarEntry[], directories: readonly string[] = bundleDirectories): void {
  for (const entry of entries) {
    const slash = entry.path.lastIndexOf('/');
    const directory = slash === -1 ? '' : entry.path.slice(0, slash);
    const base = entry.path.slice(slash + 1);
    if (!base.startsWith('.wh.')) continue;
    const opaque = base === '.wh..wh..opq';
    // an opaque marker hides everything below its directory; `.wh.<name>` hides `<name>` (and its contents)
    const removed = opaque ? directory : (directory ? `${directory}/` : '') + base.slice('.wh.'.length);
    for (const path of [...files.keys()]) {
      if (isUnder(path, removed) && !(opaque && path === removed)) files.delete(path);
    }
  }
  for (const entry of entries) {
    const base = entry.path.slice(entry.path.lastIndexOf('/') + 1);
    if (base.startsWith('.wh.')) continue;
    // a directory merges with the one below; anything else replaces what was at its path
    files.delete(entry.path);
    if (entry.type === 'directory') continue;
    for (const path of [...files.keys()]) if (path.startsWith(`${entry.path}/`)) files.delete(path);
    if (!directories.some((directory) => entry.path.startsWith(`${directory}/`))) continue;
    if (entry.type === 'file' || entry.type === 'contiguous-file') {
      files.set(entry.path, entry.data);
    } else if (entry.type === 'link' && entry.linkname !== undefined) {
      // hard links point at a file written earlier in the archive
      const target = files.get(normalizeTarPath(entry.linkname) ?? '');
      if (target) files.set(entry.path, target);
    }
    // symlinks, devices and the like hold no manifest content
  }
}

/**
 * The `manifests/` and `metadata/` files of an image, lowest layer first, one layer streaming at a
 * time. `budget` bounds the whole image (default: `defaultBundleImageLimits`).
 */
export function extractBundleFiles(layers: readonly LayerSource[], image: string, budget = new BundleImageBudget(defaultBundleImageLimits, image)): Promise<Map<string, Buffer>> {
  return extractImageFiles(layers, image, budget, bundleDirectories);
}

/**
 * The files under `directories` (image paths without the leading `/`, e.g. a catalog image's `configs`)
 * of an image, lowest layer first, one layer streaming at a time, within `budget`.
 */
export async function extractImageFiles(layers: readonly LayerSource[], image: string, budget: BundleImageBudget, directories: readonly string[]): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const [index, layer] of layers.entries()) {
    const what = `layer ${layer.digest}${layers.length > 1 ? ` (${index + 1} of ${layers.length})` : ''} of ${image}`;
    // a streamed layer's digest is checked at its end, before its entries are laid over the others
    const entries = await readLayerEntries('bytes' in layer ? layer.bytes : layer.open(), what, budget, directories);
    applyLayer(files, entries, directories);
  }
  return files;
}

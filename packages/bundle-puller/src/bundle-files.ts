import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { findExcessiveAliasing, indexOfYamlAnchor } from '@olm/untrusted-input';
import jsYaml from 'js-yaml';
import tarStream from 'tar-stream';
import { ownerReferenceTo } from '@olm/api';
import { OlmError, describeError, type CatalogRef, type KubeObject } from '@olm/core';
import { Kinds } from './kinds.js';
import type { PulledLayer } from './oci-content.js';

export const BundleUnpackErrorCodes = {
  badLayer: 'OLM_BUNDLE_UNPACK_BAD_LAYER',
  badManifest: 'OLM_BUNDLE_UNPACK_BAD_MANIFEST',
  noCsv: 'OLM_BUNDLE_UNPACK_NO_CSV',
  tooLarge: 'OLM_BUNDLE_UNPACK_TOO_LARGE',
  badConfigMap: 'OLM_BUNDLE_UNPACK_BAD_CONFIGMAP',
} as const;

/** The image the unpacked ConfigMap holds, and the manifest digest it was read at. */
export const bundleImageAnnotation = 'operatorframework.io/bundle-image';
export const bundleDigestAnnotation = 'operatorframework.io/bundle-digest';
/** Kubernetes refuses ConfigMaps whose data (keys and values) exceeds 1 MiB. */
export const configMapMaxBytes = 1024 * 1024;

const gunzipAsync = promisify(gunzip);
const bundleDirectories = ['manifests/', 'metadata/'];

// ---------------------------------------------------------------------------------------------
// Layers to files

export interface TarEntry {
  /** Normalised: no leading `./` or `/`. */
  readonly path: string;
  readonly type: string;
  readonly linkname?: string;
  readonly data: Buffer;
}

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

/** Reads a layer blob: gzip-compressed (by its magic bytes, whatever the media type says) or plain tar. */
export async function readLayerEntries(bytes: Buffer, what: string, maxBytes = 256 * 1024 * 1024): Promise<TarEntry[]> {
  let tar = bytes;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      tar = await gunzipAsync(bytes, { maxOutputLength: maxBytes });
    } catch (error) {
      throw new OlmError(BundleUnpackErrorCodes.badLayer, `${what} could not be decompressed: ${describeError(error)}; rebuild and push the bundle image`);
    }
  } else if (bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd) {
    throw new OlmError(BundleUnpackErrorCodes.badLayer, `${what} is zstd-compressed, which is not supported; rebuild the bundle image with gzip or uncompressed layers`);
  }
  const extract = tarStream.extract();
  const entries: TarEntry[] = [];
  const reading = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const path = normalizeTarPath(entry.header.name);
      if (path === undefined) continue;
      entries.push({
        path,
        type: entry.header.type ?? 'file',
        ...(entry.header.linkname ? { linkname: entry.header.linkname } : {}),
        data: Buffer.concat(chunks),
      });
    }
  })();
  extract.end(tar);
  try {
    await reading;
  } catch (error) {
    throw new OlmError(BundleUnpackErrorCodes.badLayer, `${what} is not a readable tar archive: ${describeError(error)}; rebuild and push the bundle image`);
  }
  return entries;
}

const isUnder = (path: string, directory: string) => directory === '' || path === directory || path.startsWith(`${directory}/`);

/**
 * Lays one layer over the files of the layers below, as a container runtime does: its whiteouts
 * (`.wh.<name>` removes `<name>`, `.wh..wh..opq` empties its directory) apply to the lower layers
 * only, then its files replace theirs. Only `manifests/` and `metadata/` are kept.
 */
export function applyLayer(files: Map<string, Buffer>, entries: readonly TarEntry[]): void {
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
    if (!bundleDirectories.some((directory) => entry.path.startsWith(directory))) continue;
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

/** The `manifests/` and `metadata/` files of an image, lowest layer first. */
export async function extractBundleFiles(layers: readonly Pick<PulledLayer, 'digest' | 'bytes'>[], image: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const layer of layers) applyLayer(files, await readLayerEntries(layer.bytes, `layer ${layer.digest} of ${image}`));
  return files;
}

// ---------------------------------------------------------------------------------------------
// Files to manifests

/**
 * The objects in one manifest file: a JSON document, or YAML with one or more documents. YAML is
 * read with the core schema so that unquoted timestamps stay strings, as Kubernetes reads them.
 */
export function parseManifestFile(name: string, text: string, image: string): KubeObject[] {
  const fail = (why: string) =>
    new OlmError(BundleUnpackErrorCodes.badManifest, `manifest file ${name} of bundle image ${image} ${why}; fix the file and push the bundle image again`);
  let documents: unknown[];
  try {
    documents = text.trimStart().startsWith('{') ? [JSON.parse(text)] : jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA, filename: name });
  } catch (error) {
    throw fail(`is neither JSON nor YAML: ${describeError(error).split('\n')[0]}`);
  }
  // Aliases are written out when the manifests go into the ConfigMap and onto the cluster.
  const mayAlias = indexOfYamlAnchor(text) >= 0;
  const objects: KubeObject[] = [];
  for (const [index, document] of documents.entries()) {
    if (document === null || document === undefined) continue;
    const aliasing = mayAlias ? findExcessiveAliasing(document) : undefined;
    if (aliasing !== undefined) throw fail(`has a document (#${index + 1}) that ${aliasing.replace(/^document /, '')}`);
    const object = document as Partial<KubeObject>;
    if (typeof object !== 'object' || Array.isArray(object) || typeof object.kind !== 'string' || typeof object.apiVersion !== 'string') {
      throw fail(`has a document (#${index + 1}) that is not a Kubernetes object with apiVersion and kind`);
    }
    objects.push({ ...object, metadata: object.metadata ?? {} } as KubeObject);
  }
  return objects;
}

/** A ConfigMap data key for a file name: Kubernetes allows `[-._a-zA-Z0-9]+`. */
function configMapKey(fileName: string, taken: ReadonlySet<string>): string {
  const base = fileName.replace(/[^-._a-zA-Z0-9]/g, '_');
  let key = base;
  for (let suffix = 2; taken.has(key); suffix++) key = `${base}.${suffix}`;
  return key;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const qualifiedName = /^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** The name of the ConfigMap holding an unpacked image: upstream's, a sha256 of the image reference cut to 63 characters. */
export function unpackedConfigMapName(image: string): string {
  return createHash('sha256').update(image).digest('hex').slice(0, 63);
}

export interface UnpackedConfigMapInput {
  readonly image: string;
  readonly digest: string;
  readonly files: ReadonlyMap<string, Buffer>;
  readonly catalog: CatalogRef;
  readonly catalogUid?: string;
}

/**
 * The ConfigMap an unpacked bundle is kept in, like upstream's: one data key per file directly in
 * `manifests/`, the bundle annotations of `metadata/annotations.yaml` as annotations, in the
 * catalog source's namespace and owned by it. The manifests are parsed here so that a broken
 * bundle fails before anything is stored.
 */
export function unpackedConfigMap(input: UnpackedConfigMapInput): KubeObject & { data: Record<string, string> } {
  const data: Record<string, string> = {};
  const manifests: KubeObject[] = [];
  const manifestFiles = [...input.files.keys()].filter((path) => /^manifests\/[^/]+$/.test(path)).sort();
  for (const path of manifestFiles) {
    let text: string;
    try {
      text = utf8.decode(input.files.get(path)!);
    } catch {
      throw new OlmError(BundleUnpackErrorCodes.badManifest, `manifest file ${path} of bundle image ${input.image} is not UTF-8 text; only YAML and JSON manifests belong in manifests/`);
    }
    manifests.push(...parseManifestFile(path, text, input.image));
    data[configMapKey(path.slice('manifests/'.length), new Set(Object.keys(data)))] = text;
  }
  if (!manifests.some((manifest) => manifest.kind === 'ClusterServiceVersion')) {
    const found = [...input.files.keys()].sort();
    throw new OlmError(
      BundleUnpackErrorCodes.noCsv,
      `bundle image ${input.image} has no ClusterServiceVersion in manifests/ (${found.length === 0 ? 'the image has no manifests/ or metadata/ files' : `found ${found.join(', ')}`}); is it a bundle image? Build it with the CSV and CRDs under /manifests`,
    );
  }
  const size = Object.entries(data).reduce((sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value), 0);
  if (size > configMapMaxBytes) {
    throw new OlmError(
      BundleUnpackErrorCodes.tooLarge,
      `the manifests of bundle image ${input.image} take ${size} bytes, more than the ${configMapMaxBytes} bytes a ConfigMap can hold; shrink the bundle (large CRD schemas, descriptions, icons) or ship its manifests in the catalog as olm.bundle.object properties`,
      { details: { size, limit: configMapMaxBytes } },
    );
  }
  const annotations: Record<string, string> = {};
  const annotationsFile = input.files.get('metadata/annotations.yaml') ?? input.files.get('metadata/annotations.yml');
  if (annotationsFile) {
    try {
      const parsed = jsYaml.load(annotationsFile.toString('utf8'), { schema: jsYaml.CORE_SCHEMA }) as { annotations?: Record<string, unknown> } | null;
      // One string aliased under many keys would grow the ConfigMap past any size.
      const aliasing = findExcessiveAliasing(parsed);
      if (aliasing !== undefined) throw new Error(aliasing);
      for (const [key, value] of Object.entries(parsed?.annotations ?? {})) {
        if (qualifiedName.test(key) && typeof value === 'string') annotations[key] = value;
      }
    } catch {
      // metadata is informative here (the catalog already gave package, channels and properties)
    }
  }
  annotations[bundleImageAnnotation] = input.image;
  annotations[bundleDigestAnnotation] = input.digest;
  const name = unpackedConfigMapName(input.image);
  return {
    apiVersion: Kinds.configMap.apiVersion,
    kind: Kinds.configMap.kind,
    metadata: {
      name,
      namespace: input.catalog.namespace,
      labels: {
        'olm.managed': 'true',
        ...(input.catalog.name.length <= 63 ? { 'olm.catalogSource': input.catalog.name } : {}),
      },
      annotations,
      ...(input.catalogUid
        ? {
            ownerReferences: [
              ownerReferenceTo(Kinds.catalogSource, { metadata: { name: input.catalog.name, uid: input.catalogUid } }, { controller: false, blockOwnerDeletion: false }),
            ],
          }
        : {}),
    },
    data,
  };
}

/** The manifests kept in an unpacked ConfigMap, in key order. */
export function manifestsFromConfigMap(configMap: { metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> }; data?: Record<string, string> }): KubeObject[] {
  const image = configMap.metadata?.annotations?.[bundleImageAnnotation] ?? '';
  const manifests = Object.keys(configMap.data ?? {})
    .sort()
    .flatMap((key) => parseManifestFile(key, configMap.data![key]!, image));
  if (!manifests.some((manifest) => manifest.kind === 'ClusterServiceVersion')) {
    throw new OlmError(BundleUnpackErrorCodes.badConfigMap, `it holds no ClusterServiceVersion`);
  }
  return manifests;
}

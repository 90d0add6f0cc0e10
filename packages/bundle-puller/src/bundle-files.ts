import { createHash } from 'node:crypto';
import { findExcessiveAliasing, indexOfYamlAnchor } from '@olm/untrusted-input';
import jsYaml from 'js-yaml';
import { ownerReferenceTo } from '@olm/api';
import { OlmError, describeError, type CatalogRef, type KubeObject } from '@olm/core';
import { BundleUnpackErrorCodes } from './bundle-image-errors.js';
import { Kinds } from './kinds.js';

/** The image the unpacked ConfigMap holds, and the manifest digest it was read at. */
export const bundleImageAnnotation = 'operatorframework.io/bundle-image';
export const bundleDigestAnnotation = 'operatorframework.io/bundle-digest';
/** On the ConfigMap of an image that failed on one of its limits: why (the image is not pulled again while it is there). */
export const bundleUnpackFailureAnnotation = 'operatorframework.io/bundle-unpack-failure';
/** Kubernetes refuses ConfigMaps whose data (keys and values) exceeds 1 MiB. */
export const configMapMaxBytes = 1024 * 1024;

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
  const manifestFiles = [...input.files.keys()].filter((path) => /^manifests\/[^/]+$/.test(path)).sort();
  const keys = new Map<string, string>();
  for (const path of manifestFiles) keys.set(path, configMapKey(path.slice('manifests/'.length), new Set(keys.values())));
  // before decoding or parsing (hard links make many files of one buffer): what a ConfigMap cannot hold is never read
  const size = manifestFiles.reduce((sum, path) => sum + Buffer.byteLength(keys.get(path)!) + input.files.get(path)!.length, 0);
  if (size > configMapMaxBytes) {
    throw new OlmError(
      BundleUnpackErrorCodes.tooLarge,
      `the manifests of bundle image ${input.image} take ${size} bytes, more than the ${configMapMaxBytes} bytes a ConfigMap can hold; shrink the bundle (large CRD schemas, descriptions, icons) or ship its manifests in the catalog as olm.bundle.object properties`,
      { details: { size, limit: configMapMaxBytes } },
    );
  }
  const data: Record<string, string> = {};
  const texts: Array<[path: string, text: string]> = [];
  for (const path of manifestFiles) {
    let text: string;
    try {
      text = utf8.decode(input.files.get(path)!);
    } catch {
      throw new OlmError(BundleUnpackErrorCodes.badManifest, `manifest file ${path} of bundle image ${input.image} is not UTF-8 text; only YAML and JSON manifests belong in manifests/`);
    }
    texts.push([path, text]);
    data[keys.get(path)!] = text;
  }
  const manifests = texts.flatMap(([path, text]) => parseManifestFile(path, text, input.image));
  if (!manifests.some((manifest) => manifest.kind === 'ClusterServiceVersion')) {
    const found = [...input.files.keys()].sort();
    throw new OlmError(
      BundleUnpackErrorCodes.noCsv,
      `bundle image ${input.image} has no ClusterServiceVersion in manifests/ (${found.length === 0 ? 'the image has no manifests/ or metadata/ files' : `found ${found.join(', ')}`}); is it a bundle image? Build it with the CSV and CRDs under /manifests`,
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
  return { ...bundleConfigMap(input, annotations), data };
}

/** The ConfigMap of an image, named after it, in the catalog source's namespace and owned by it. */
function bundleConfigMap(input: { readonly image: string; readonly catalog: CatalogRef; readonly catalogUid?: string }, annotations: Record<string, string>): KubeObject {
  return {
    apiVersion: Kinds.configMap.apiVersion,
    kind: Kinds.configMap.kind,
    metadata: {
      name: unpackedConfigMapName(input.image),
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
  };
}

/**
 * The ConfigMap of an image that failed on one of its limits: no data, the failure in
 * `bundleUnpackFailureAnnotation`. While it exists the image is not pulled again (deleting it is the
 * explicit way to try again), also after a restart.
 */
export function failedUnpackConfigMap(input: { readonly image: string; readonly message: string; readonly catalog: CatalogRef; readonly catalogUid?: string }): KubeObject {
  // annotations are bounded too (256 KiB in all); the message is a few hundred bytes, cut to be safe
  return bundleConfigMap(input, { [bundleImageAnnotation]: input.image, [bundleUnpackFailureAnnotation]: input.message.slice(0, 4096) });
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

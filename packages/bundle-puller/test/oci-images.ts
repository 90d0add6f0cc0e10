import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import tarStream from 'tar-stream';

/** One tar entry: a file (with content), a directory, a hard link, or a whiteout (an empty file named `.wh.*`). */
export interface LayerEntry {
  readonly name: string;
  readonly content?: string;
  readonly type?: 'file' | 'directory' | 'link' | 'symlink';
  readonly linkname?: string;
}

/** A tar archive of the entries, as an image builder writes a layer. */
export async function tarLayer(entries: readonly LayerEntry[]): Promise<Buffer> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    if (type === 'file') {
      await new Promise<void>((resolve, reject) => pack.entry({ name: entry.name, type, mode: 0o644 }, entry.content ?? '', (error) => (error ? reject(error) : resolve())));
    } else {
      await new Promise<void>((resolve, reject) =>
        pack.entry({ name: entry.name, type, mode: type === 'directory' ? 0o755 : 0o644, ...(entry.linkname ? { linkname: entry.linkname } : {}) }, (error) =>
          error ? reject(error) : resolve(),
        ),
      );
    }
  }
  pack.finalize();
  await collected;
  return Buffer.concat(chunks);
}

export const gzip = (bytes: Buffer): Buffer => gzipSync(bytes);
export const digestOf = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

export { dockerRegistryBinary, htpasswdLine, startDockerRegistry, type DockerRegistry } from '@olm/testing';

/** Pushes one blob with the monolithic upload (`POST …/blobs/uploads/`, then `PUT <location>&digest=…`). */
export async function pushBlob(registryUrl: string, repository: string, bytes: Buffer, headers: Record<string, string> = {}): Promise<string> {
  const digest = digestOf(bytes);
  const started = await fetch(`${registryUrl}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers });
  if (started.status !== 202) throw new Error(`blob upload to ${repository} not started: HTTP ${started.status} ${await started.text()}`);
  const location = new URL(started.headers.get('location')!, registryUrl);
  location.searchParams.set('digest', digest);
  const put = await fetch(location, { method: 'PUT', headers: { ...headers, 'Content-Type': 'application/octet-stream' }, body: bytes });
  if (put.status !== 201) throw new Error(`blob ${digest} not pushed to ${repository}: HTTP ${put.status} ${await put.text()}`);
  return digest;
}

export interface PushedImage {
  readonly reference: string;
  readonly manifestDigest: string;
  readonly layers: ReadonlyArray<{ readonly digest: string; readonly mediaType: string; readonly size: number }>;
}

/** The labels of a bundle image's config: its media type and where its manifests and metadata are. */
export const bundleImageLabels: Readonly<Record<string, string>> = {
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
};

/** Pushes an OCI image: its layers (gzip-compressed or plain, as given), a config with `labels` and the manifest under `tag`. */
export async function pushImage(
  registry: { host: string; url: string },
  repository: string,
  tag: string,
  layers: ReadonlyArray<{ readonly bytes: Buffer; readonly gzipped: boolean }>,
  headers: Record<string, string> = {},
  labels: Readonly<Record<string, string>> = bundleImageLabels,
): Promise<PushedImage> {
  const pushedLayers = [];
  const pushed = new Set<string>();
  for (const layer of layers) {
    // a blob named by several layers is pushed once
    const digest = pushed.has(digestOf(layer.bytes)) ? digestOf(layer.bytes) : await pushBlob(registry.url, repository, layer.bytes, headers);
    pushed.add(digest);
    pushedLayers.push({
      mediaType: layer.gzipped ? 'application/vnd.oci.image.layer.v1.tar+gzip' : 'application/vnd.oci.image.layer.v1.tar',
      digest,
      size: layer.bytes.length,
    });
  }
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Labels: labels },
      rootfs: { type: 'layers', diff_ids: [] },
    }),
  );
  const configDigest = await pushBlob(registry.url, repository, config, headers);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
      layers: pushedLayers,
    }),
  );
  const put = await fetch(`${registry.url}/v2/${repository}/manifests/${tag}`, {
    method: 'PUT',
    headers: { ...headers, 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' },
    body: manifest,
  });
  if (put.status !== 201) throw new Error(`manifest ${repository}:${tag} not pushed: HTTP ${put.status} ${await put.text()}`);
  return { reference: `${registry.host}/${repository}:${tag}`, manifestDigest: digestOf(manifest), layers: pushedLayers };
}

/** Where the filesystem driver keeps a blob's bytes. */
export function blobDataPath(storage: string, digest: string): string {
  const hex = digest.slice('sha256:'.length);
  return join(storage, 'docker', 'registry', 'v2', 'blobs', 'sha256', hex.slice(0, 2), hex, 'data');
}

/** The CSV of the `thing` bundle (an unquoted timestamp annotation, one owned CRD). */
export const thingCsvYaml = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: thing.v1.0.0
  annotations:
    createdAt: 2024-01-02T03:04:05Z
spec:
  displayName: Thing
  version: 1.0.0
  customresourcedefinitions:
    owned:
      - name: things.acme.example.com
        version: v1
        kind: Thing
  install:
    strategy: deployment
    spec:
      deployments: []
`;
/** The CRD the `thing` CSV owns. */
export const thingCrdYaml = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.acme.example.com
spec:
  group: acme.example.com
  scope: Namespaced
  names: {plural: things, singular: thing, kind: Thing, listKind: ThingList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
/** `metadata/annotations.yaml` of the `thing` bundle. */
export const thingAnnotationsYaml = `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: thing
  operators.operatorframework.io.bundle.channels.v1: stable
`;
/** An image-only package: the catalog knows the bundle's properties and image, not its manifests. */
export function imageOnlyPackage(name: string, image: string) {
  return [
    { schema: 'olm.package', name, defaultChannel: 'stable' },
    { schema: 'olm.channel', package: name, name: 'stable', entries: [{ name: `${name}.v1.0.0` }] },
    {
      schema: 'olm.bundle',
      name: `${name}.v1.0.0`,
      package: name,
      image,
      properties: [
        { type: 'olm.package', value: { packageName: name, version: '1.0.0' } },
        { type: 'olm.gvk', value: { group: 'acme.example.com', version: 'v1', kind: 'Thing' } },
      ],
    },
  ];
}

/** Pushes a one-layer bundle image whose only manifest is the CSV `<name>.v1.0.0` (for `imageOnlyPackage(name, …)`). */
export async function pushMinimalBundle(registry: { host: string; url: string }, repository: string, tag: string, name: string, headers: Record<string, string> = {}): Promise<PushedImage> {
  const csv = `apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: ${name}.v1.0.0\nspec:\n  displayName: ${name}\n  version: 1.0.0\n  install:\n    strategy: deployment\n    spec:\n      deployments: []\n`;
  return pushImage(registry, repository, tag, [{ bytes: await tarLayer([{ name: `manifests/${name}.clusterserviceversion.yaml`, content: csv }]), gzipped: false }], headers);
}

/** A ustar header for one regular file of `size` bytes (what tar writes before its content). */
function ustarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string) => header.write(value, offset, length, 'ascii');
  field(0, 100, name);
  field(100, 8, '0000644\0');
  field(108, 8, '0000000\0');
  field(116, 8, '0000000\0');
  field(124, 12, `${size.toString(8).padStart(11, '0')}\0`);
  field(136, 12, '00000000000\0');
  field(148, 8, '        ');
  field(156, 1, '0');
  field(257, 8, 'ustar\x0000');
  const checksum = header.reduce((sum, byte) => sum + byte, 0);
  field(148, 8, `${checksum.toString(8).padStart(6, '0')}\0 `);
  return header;
}

/** `bytes` zeros, gzip-compressed as a stream (never held whole): zeros compress about a thousandfold. */
export async function gzipZeros(bytes: number): Promise<Buffer> {
  const { createGzip } = await import('node:zlib');
  const gzipper = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of gzipper) chunks.push(chunk as Buffer);
  })();
  const block = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= block.length) {
    if (!gzipper.write(left >= block.length ? block : block.subarray(0, left))) await new Promise((resolve) => gzipper.once('drain', resolve));
  }
  gzipper.end();
  await collected;
  return Buffer.concat(chunks);
}

/**
 * A gzip layer holding one file of `size` zeros (a multiple of 512) at `name`: a gzip member with the
 * tar header, then `zeros` (`gzipZeros(size + 1024)`: the content and the end-of-archive blocks), so
 * many distinct layers share the costly compression. Gzip readers read concatenated members as one stream.
 */
export function zeroFileLayer(name: string, size: number, zeros: Buffer): Buffer {
  return Buffer.concat([gzip(ustarHeader(name, size)), zeros]);
}

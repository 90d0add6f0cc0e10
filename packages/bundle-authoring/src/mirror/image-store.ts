import { createReadStream } from 'node:fs';
import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { MediaTypes, sha256Digest, type OciRegistryTransfer, type RawManifest, type RegistryCredential } from '@olm/bundle-puller/registry';
import { OlmError } from '@olm/core';
import { MirrorErrorCodes } from './mirror-limits.js';

/** Where images are read from or copied to: a registry, or an OCI image layout directory. Repositories are `registry/path`. */
export interface ImageStore {
  /** For messages: `registry 127.0.0.1:5000`, `OCI layout ./mirror`. */
  readonly name: string;
  readManifest(repository: string, reference: string, maxBytes: number): Promise<RawManifest>;
  hasManifest(repository: string, digest: string): Promise<boolean>;
  hasBlob(repository: string, digest: string): Promise<boolean>;
  openBlob(repository: string, digest: string): Promise<AsyncIterable<Uint8Array>>;
  writeBlob(repository: string, digest: string, content: AsyncIterable<Uint8Array>): Promise<void>;
  /** Stores a manifest, under a tag or its digest. */
  writeManifest(repository: string, reference: string, manifest: RawManifest): Promise<void>;
  /** Makes what was written visible (a layout's `index.json`). */
  flush(): Promise<void>;
}

/** Registries through the bundle puller's transfer client; `credentialsFor(repository)` gives each repository's credentials. */
export function registryStore(name: string, transfer: OciRegistryTransfer, credentialsFor: (repository: string) => readonly RegistryCredential[]): ImageStore {
  return {
    name,
    readManifest: (repository, reference, maxBytes) => transfer.readManifest(repository, reference, maxBytes, credentialsFor(repository)),
    hasManifest: (repository, digest) => transfer.hasManifest(repository, digest, credentialsFor(repository)),
    hasBlob: (repository, digest) => transfer.hasBlob(repository, digest, credentialsFor(repository)),
    openBlob: (repository, digest) => transfer.openBlob(repository, digest, credentialsFor(repository)),
    writeBlob: (repository, digest, content) => transfer.writeBlob(repository, digest, content, credentialsFor(repository)),
    writeManifest: (repository, reference, manifest) => transfer.writeManifest(repository, reference, manifest, credentialsFor(repository)),
    flush: async () => undefined,
  };
}

interface IndexEntry {
  mediaType: string;
  digest: string;
  size: number;
  annotations: Record<string, string>;
}

export const refNameAnnotation = 'org.opencontainers.image.ref.name';

const exists = (path: string) => access(path).then(() => true, () => false);

/**
 * An OCI image layout (`oci-layout`, `index.json`, `blobs/sha256/`). Every manifest stored is listed
 * in `index.json` under `org.opencontainers.image.ref.name` = its source reference
 * (`registry/path:tag` or `registry/path@sha256:…`), so that the layout, carried into an air-gapped
 * network, can be pushed from there. Blobs are written to a `.partial` file and renamed once complete,
 * so an interrupted copy leaves no truncated blob behind.
 */
export async function layoutStore(dir: string): Promise<ImageStore> {
  const blobs = join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  const indexPath = join(dir, 'index.json');
  const entries = new Map<string, IndexEntry>();
  if (await exists(indexPath)) {
    const index = JSON.parse(await readFile(indexPath, 'utf8')) as { manifests?: IndexEntry[] };
    for (const entry of index.manifests ?? []) entries.set(entry.annotations?.[refNameAnnotation] ?? entry.digest, entry);
  }
  const blobPath = (digest: string) => join(blobs, digest.slice('sha256:'.length));
  const name = `OCI layout ${dir}`;
  return {
    name,
    async readManifest(repository, reference, maxBytes) {
      const digest = reference.startsWith('sha256:') ? reference : entries.get(`${repository}:${reference}`)?.digest;
      if (!digest || !(await exists(blobPath(digest)))) {
        throw new OlmError(MirrorErrorCodes.notFound, `${name} has no image ${repository}${reference.startsWith('sha256:') ? '@' : ':'}${reference}; mirror it into the layout first (olm catalog mirror SRC --to oci-layout:${dir})`);
      }
      const bytes = await readFile(blobPath(digest));
      if (bytes.length > maxBytes) throw new OlmError(MirrorErrorCodes.limitExceeded, `manifest ${digest} in ${name} is ${bytes.length} bytes, past the limit maxManifestBytes of ${maxBytes}; raise it with --max-manifest-bytes`);
      if (sha256Digest(bytes) !== digest) throw new OlmError(MirrorErrorCodes.corrupt, `manifest ${digest} in ${name} does not match its digest; the layout is damaged, mirror into it again`);
      const mediaType = (JSON.parse(bytes.toString('utf8')) as { mediaType?: string }).mediaType ?? entries.get(`${repository}@${digest}`)?.mediaType ?? MediaTypes.ociManifest;
      return { bytes, mediaType, digest };
    },
    // listed under this repository, not only present: a manifest whose entry an interrupted run did not record is walked again
    hasManifest: async (repository, digest) => entries.has(`${repository}@${digest}`) && exists(blobPath(digest)),
    hasBlob: async (_repository, digest) => exists(blobPath(digest)),
    openBlob: async (_repository, digest) => createReadStream(blobPath(digest)),
    async writeBlob(_repository, digest, content) {
      const partial = `${blobPath(digest)}.partial`;
      await pipeline(content, createWriteStream(partial));
      await rename(partial, blobPath(digest));
    },
    async writeManifest(repository, reference, manifest) {
      if (!(await exists(blobPath(manifest.digest)))) await writeFile(blobPath(manifest.digest), manifest.bytes);
      const refName = reference.startsWith('sha256:') ? `${repository}@${reference}` : `${repository}:${reference}`;
      entries.set(refName, { mediaType: manifest.mediaType, digest: manifest.digest, size: manifest.bytes.length, annotations: { [refNameAnnotation]: refName } });
    },
    async flush() {
      await writeFile(join(dir, 'oci-layout'), `${JSON.stringify({ imageLayoutVersion: '1.0.0' })}\n`);
      const manifests = [...entries.values()].sort((a, b) => (a.annotations[refNameAnnotation]! < b.annotations[refNameAnnotation]! ? -1 : 1));
      await writeFile(`${indexPath}.partial`, `${JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.ociIndex, manifests })}\n`);
      await rename(`${indexPath}.partial`, indexPath);
    },
  };
}

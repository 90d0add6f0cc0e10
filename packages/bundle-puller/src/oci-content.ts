import { createHash } from 'node:crypto';
import { OlmError } from '@olm/core';
import { BundleImageErrorCodes } from './bundle-image-errors.js';

export const MediaTypes = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

/** Layer media types we can read: plain or gzip tar (the content decides; the type only rules out zstd and the like). */
export const readableLayerTypes = new Set<string>([
  MediaTypes.ociLayer,
  MediaTypes.ociLayerGzip,
  MediaTypes.dockerLayerGzip,
  'application/vnd.oci.image.layer.nondistributable.v1.tar',
  'application/vnd.oci.image.layer.nondistributable.v1.tar+gzip',
  'application/vnd.docker.image.rootfs.foreign.diff.tar.gzip',
]);

export const manifestAccept = [MediaTypes.ociManifest, MediaTypes.dockerManifest, MediaTypes.ociIndex, MediaTypes.dockerManifestList].join(', ');

/** A content descriptor of a manifest or index. */
export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly platform?: { readonly os?: string; readonly architecture?: string; readonly variant?: string };
}

/** From an image index (manifest list), the linux/amd64 manifest, else the first one. */
export function selectPlatformManifest(manifests: readonly Descriptor[]): Descriptor | undefined {
  return manifests.find((entry) => entry.platform?.os === 'linux' && entry.platform.architecture === 'amd64') ?? manifests[0];
}

/** `sha256:<hex>` of some bytes. */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Refuses content whose sha256 is not the digest it was asked for under (only sha256 is checked; others are refused). */
export function verifyDigest(expected: string, bytes: Uint8Array, what: string): void {
  checkDigestAlgorithm(expected, what);
  verifyComputedDigest(expected, sha256Digest(bytes), what);
}

/** Refuses digests other than sha256, the only one verified (before any content is read). */
export function checkDigestAlgorithm(expected: string, what: string): void {
  if (!expected.startsWith('sha256:')) {
    throw new OlmError(BundleImageErrorCodes.unsupported, `${what} has digest ${expected}; only sha256 digests can be verified; rebuild the image with sha256 digests`);
  }
}

/** Refuses content whose computed digest (`sha256:<hex>`, hashed while it streamed) is not the one expected. */
export function verifyComputedDigest(expected: string, actual: string, what: string): void {
  if (actual !== expected) {
    throw new OlmError(
      BundleImageErrorCodes.digestMismatch,
      `digest mismatch for ${what}: expected ${expected}, got ${actual}; the registry served corrupted or tampered content, refused (re-push the image, or check the registry's storage)`,
      { details: { expected, actual } },
    );
  }
}

/** An image manifest or index, as far as a pull reads it. */
export interface ImageManifest {
  schemaVersion?: number;
  mediaType?: string;
  manifests?: Descriptor[];
  config?: Descriptor;
  layers?: Descriptor[];
}

/** The image configuration, as far as a pull reads it: its labels (`config.Labels`). */
export interface ImageConfig {
  readonly config?: { readonly Labels?: Readonly<Record<string, string>> | null };
}

export interface PulledLayer {
  readonly digest: string;
  readonly mediaType: string;
  /** The blob as stored (a tar archive, gzip-compressed or not), fetched when iterated; its digest is checked at its end. */
  open(): AsyncIterable<Buffer>;
}

export interface PulledImage {
  /** The digest of the image manifest that was read (after choosing from an index). */
  readonly digest: string;
  /** The digest the reference resolves to: the index's own when it is an index, else `digest` (what a digest-pinned ref names). */
  readonly referenceDigest: string;
  /** Reads the image configuration blob (at most 4 MiB, its digest checked). */
  config(): Promise<ImageConfig>;
  /** Layers, lowest first; each is read only when opened, so a pull holds one chunk of one layer at a time. */
  readonly layers: readonly PulledLayer[];
  /** The image configuration (labels under `config.Labels`), read when asked, digest checked; at most 4 MiB. */
  readConfig?(): Promise<Buffer>;
}

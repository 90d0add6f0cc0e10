import { OlmError } from '@olm/core';
import { BundleImageErrorCodes, BundleUnpackErrorCodes } from './bundle-image-errors.js';

/**
 * Bounds of one bundle image, whatever its layers claim. A real bundle is a few files and a few MB; an
 * image past these is refused (and not pulled again, see `BundleUnpacker`) instead of taking the
 * process down. Every layer counts, also when several layers name the same blob.
 */
export interface BundleImageLimits {
  /** Most layers in the image manifest. */
  readonly maxLayers: number;
  /** Most bytes of layer blobs read, as stored (compressed), over all layers. */
  readonly maxCompressedBytes: number;
  /** Most bytes of tar data read after decompression, over all layers (every file, kept or not). */
  readonly maxUncompressedBytes: number;
  /** Largest single file under `manifests/` or `metadata/`, refused from its tar header before it is read. */
  readonly maxFileBytes: number;
  /** Most bytes of `manifests/` and `metadata/` files kept, over all layers (also those a later layer replaces). */
  readonly maxManifestBytes: number;
  /** Most entries under `manifests/` and `metadata/` (files, links, directories, whiteouts), over all layers. */
  readonly maxFiles: number;
}

export const defaultBundleImageLimits: BundleImageLimits = Object.freeze({
  maxLayers: 128,
  maxCompressedBytes: 128 * 1024 * 1024,
  maxUncompressedBytes: 256 * 1024 * 1024,
  maxFileBytes: 1024 * 1024,
  maxManifestBytes: 8 * 1024 * 1024,
  maxFiles: 1_000,
});

/** How a user raises each limit: the plugin option (`bundleImageLimits.<key>`) and the `olm run`/`olm up` flag. */
export const bundleImageLimitFlags: Readonly<Record<keyof BundleImageLimits, string>> = Object.freeze({
  maxLayers: '--bundle-max-layers',
  maxCompressedBytes: '--bundle-max-compressed-bytes',
  maxUncompressedBytes: '--bundle-max-uncompressed-bytes',
  maxFileBytes: '--bundle-max-file-bytes',
  maxManifestBytes: '--bundle-max-manifest-bytes',
  maxFiles: '--bundle-max-files',
});

const units: Readonly<Record<keyof BundleImageLimits, string>> = {
  maxLayers: 'layers',
  maxCompressedBytes: 'compressed bytes',
  maxUncompressedBytes: 'uncompressed bytes',
  maxFileBytes: 'bytes in one file',
  maxManifestBytes: 'bytes of manifests/ and metadata/ files',
  maxFiles: 'entries under manifests/ and metadata/',
};

/** The error of an image past one of its limits: what, where, which limit, and how to raise it. */
export function limitExceeded(limit: keyof BundleImageLimits, limits: BundleImageLimits, image: string, where: string, found: string): OlmError {
  return new OlmError(
    BundleImageErrorCodes.limitExceeded,
    `bundle image ${image} is over its limit of ${limits[limit]} ${units[limit]}: ${where} ${found}; ` +
      `a bundle image holds only manifests and metadata (a few MB); if the bundle really is this large, raise the bundle puller's bundleImageLimits.${limit} (olm run/up ${bundleImageLimitFlags[limit]})`,
    { details: { limit, value: limits[limit] } },
  );
}

/**
 * What one image has used of its limits so far; each `add…` throws `limitExceeded` past a limit.
 * One budget per pull, shared by all its layers, so many small layers cannot add up past it.
 */
export class BundleImageBudget {
  private compressed = 0;
  private uncompressed = 0;
  private manifestBytes = 0;
  private files = 0;

  constructor(
    readonly limits: BundleImageLimits,
    readonly image: string,
  ) {}

  fail(limit: keyof BundleImageLimits, where: string, found: string): OlmError {
    return limitExceeded(limit, this.limits, this.image, where, found);
  }

  addCompressed(bytes: number, where: string): void {
    this.compressed += bytes;
    if (this.compressed > this.limits.maxCompressedBytes) throw this.fail('maxCompressedBytes', where, `takes the layers read so far past it (${this.compressed} bytes)`);
  }

  addUncompressed(bytes: number, where: string): void {
    this.uncompressed += bytes;
    if (this.uncompressed > this.limits.maxUncompressedBytes) throw this.fail('maxUncompressedBytes', where, `decompresses past it (${this.uncompressed} bytes so far)`);
  }

  /** A file or other entry under `manifests/` or `metadata/` that is about to be kept, checked from its tar header. */
  addKeptEntry(size: number, where: string): void {
    this.files += 1;
    if (this.files > this.limits.maxFiles) throw this.fail('maxFiles', where, `is entry number ${this.files}`);
    if (size > this.limits.maxFileBytes) throw this.fail('maxFileBytes', where, `is ${size} bytes`);
    this.manifestBytes += size;
    if (this.manifestBytes > this.limits.maxManifestBytes) throw this.fail('maxManifestBytes', where, `takes the files kept so far past it (${this.manifestBytes} bytes)`);
  }
}

/** Whether an unpack failed on a bound of the image: pulling the same image again would fail the same way. */
export function isBundleImageLimitError(code: string): boolean {
  return code === BundleImageErrorCodes.limitExceeded || code === BundleImageErrorCodes.tooLarge || code === BundleUnpackErrorCodes.tooLarge;
}

import { OlmError } from '@olm/core';

/** Bounds of one mirror run, in aggregate over every image it copies. */
export interface MirrorLimits {
  /** Most manifests copied (each image, each manifest of a multi-arch index). */
  readonly maxImages: number;
  /** Largest manifest or index read. */
  readonly maxManifestBytes: number;
  /** Largest single blob (a layer), from its descriptor before it is read and as it streams. */
  readonly maxBlobBytes: number;
  /** Most blob bytes read from the source in the whole run (blobs already at the target are not read). */
  readonly maxTotalBytes: number;
}

export const defaultMirrorLimits: MirrorLimits = Object.freeze({
  maxImages: 20_000,
  maxManifestBytes: 4 * 1024 * 1024,
  maxBlobBytes: 10 * 1024 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024 * 1024,
});

/** The `olm catalog mirror` flag that raises each limit. */
export const mirrorLimitFlags: Readonly<Record<keyof MirrorLimits, string>> = Object.freeze({
  maxImages: '--max-images',
  maxManifestBytes: '--max-manifest-bytes',
  maxBlobBytes: '--max-blob-bytes',
  maxTotalBytes: '--max-total-bytes',
});

export const MirrorErrorCodes = {
  limitExceeded: 'OLM_MIRROR_LIMIT_EXCEEDED',
  notFound: 'OLM_MIRROR_NOT_FOUND',
  corrupt: 'OLM_MIRROR_CORRUPT',
  /** A filter or a source that cannot be used: exit 2 in the CLI. */
  input: 'OLM_MIRROR_INPUT',
} as const;

/** What a run used so far, refused past its limits with the limit's name and flag. */
export class MirrorBudget {
  images = 0;
  bytes = 0;

  constructor(readonly limits: MirrorLimits) {}

  fail(limit: keyof MirrorLimits, where: string, found: string): OlmError {
    return new OlmError(
      MirrorErrorCodes.limitExceeded,
      `${where} ${found}, past the limit ${limit} of ${this.limits[limit]}; raise it with ${mirrorLimitFlags[limit]} (option limits.${limit}) if the catalog really is this large`,
      { details: { limit, value: this.limits[limit] } },
    );
  }

  addImage(what: string): void {
    this.images += 1;
    if (this.images > this.limits.maxImages) throw this.fail('maxImages', `copying ${what} makes`, `${this.images} manifests`);
  }

  checkBlobSize(size: number, what: string): void {
    if (size > this.limits.maxBlobBytes) throw this.fail('maxBlobBytes', what, `is ${size} bytes`);
  }

  addBytes(count: number, blobSoFar: number, what: string): void {
    this.bytes += count;
    if (blobSoFar > this.limits.maxBlobBytes) throw this.fail('maxBlobBytes', what, `is more than ${this.limits.maxBlobBytes} bytes`);
    if (this.bytes > this.limits.maxTotalBytes) throw this.fail('maxTotalBytes', `the blobs read up to ${what} take`, `${this.bytes} bytes`);
  }
}

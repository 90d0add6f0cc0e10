import { defaultBundleImageLimits } from '@olm/bundle-puller';
import { RenderErrorCodes, renderError } from './errors.js';

/**
 * Bounds of one render. A bundle is untrusted input: its manifests are counted and measured (as JSON)
 * before anything is built, and what is rendered is measured too, because a CSV's annotations are
 * copied into every Deployment's pod template and its permissions may become a Role per entry.
 */
export interface RenderLimits {
  /** Most manifests in the bundle (its CSV, CRDs and other objects together). */
  readonly maxObjects: number;
  /** Largest single manifest, in bytes of JSON. */
  readonly maxObjectBytes: number;
  /** Most bytes of JSON of all the bundle's manifests together. */
  readonly maxTotalBytes: number;
  /** Most objects rendered. */
  readonly maxRenderedObjects: number;
  /** Most bytes of JSON of all rendered objects together. */
  readonly maxRenderedBytes: number;
}

/** The bundle puller's bounds of an image's manifests (files, one file, all files), and twice them for what is rendered. */
export const defaultRenderLimits: RenderLimits = Object.freeze({
  maxObjects: defaultBundleImageLimits.maxFiles,
  maxObjectBytes: defaultBundleImageLimits.maxFileBytes,
  maxTotalBytes: defaultBundleImageLimits.maxManifestBytes,
  maxRenderedObjects: 2 * defaultBundleImageLimits.maxFiles,
  maxRenderedBytes: 2 * defaultBundleImageLimits.maxManifestBytes,
});

const units: Readonly<Record<keyof RenderLimits, string>> = {
  maxObjects: 'manifests',
  maxObjectBytes: 'bytes in one manifest',
  maxTotalBytes: 'bytes of manifests',
  maxRenderedObjects: 'rendered objects',
  maxRenderedBytes: 'bytes of rendered objects',
};

/** What, where, which limit, and the option that raises it. */
export function renderLimitExceeded(limit: keyof RenderLimits, limits: RenderLimits, bundle: string, found: string) {
  return renderError(
    RenderErrorCodes.limitExceeded,
    `bundle ${bundle} is over the render limit of ${limits[limit]} ${units[limit]}: ${found}; ` +
      `if the bundle really is this large, raise the render option limits.${limit}`,
    { bundle, limit, value: limits[limit] },
  );
}

/** Counts what one render produces; `add` throws past `maxRenderedObjects` or `maxRenderedBytes`. */
export class RenderBudget {
  private objects = 0;
  private bytes = 0;

  constructor(
    private readonly limits: RenderLimits,
    private readonly bundle: string,
  ) {}

  add<T>(object: T, what: string): T {
    this.objects += 1;
    if (this.objects > this.limits.maxRenderedObjects) {
      throw renderLimitExceeded('maxRenderedObjects', this.limits, this.bundle, `${what} is object ${this.objects}`);
    }
    this.bytes += Buffer.byteLength(JSON.stringify(object), 'utf8');
    if (this.bytes > this.limits.maxRenderedBytes) {
      throw renderLimitExceeded('maxRenderedBytes', this.limits, this.bundle, `${what} brings the rendered objects to ${this.bytes} bytes`);
    }
    return object;
  }
}

/**
 * The raw file-based catalog (FBC) as loaded from disk, before it is converted into a model:
 * upstream's `declcfg.DeclarativeConfig`. Every blob remembers where it came from.
 */

/** Where a blob came from: the file (relative to the catalog root, `/`-separated) and its line. */
export interface BlobPosition {
  readonly file: string;
  /** 1-based line where the blob starts, when known. */
  readonly line?: number;
  /** 0-based index of the blob (YAML document / JSON value) within its file. */
  readonly index?: number;
}

/** Any blob: its meta keys (found case-insensitively) and the decoded JSON object. */
export interface Meta {
  readonly schema: string;
  readonly package: string;
  readonly name: string;
  readonly blob: Readonly<Record<string, unknown>>;
  readonly position: BlobPosition;
}

/** A property as written in FBC; `value` is the decoded JSON, `undefined` when the key is absent. */
export interface FbcProperty {
  readonly type: string;
  readonly value: unknown;
}

export interface FbcIcon {
  /** Base64 text, validated with Go's standard-encoding rules at load. */
  readonly base64data: string;
  readonly mediatype: string;
}

export interface FbcPackage {
  readonly schema: string;
  readonly name: string;
  readonly defaultChannel: string;
  readonly icon?: FbcIcon;
  readonly description: string;
  readonly properties: readonly FbcProperty[];
  readonly position: BlobPosition;
}

export interface FbcChannelEntry {
  readonly name: string;
  readonly replaces: string;
  readonly skips: readonly string[];
  readonly skipRange: string;
}

export interface FbcChannel {
  readonly schema: string;
  readonly name: string;
  readonly package: string;
  readonly entries: readonly FbcChannelEntry[];
  readonly properties: readonly FbcProperty[];
  readonly position: BlobPosition;
}

export interface FbcRelatedImage {
  readonly name: string;
  readonly image: string;
}

export interface FbcBundle {
  readonly schema: string;
  readonly name: string;
  readonly package: string;
  readonly image: string;
  readonly properties: readonly FbcProperty[];
  readonly relatedImages: readonly FbcRelatedImage[];
  /** Manifests decoded from `olm.bundle.object` properties, as compact JSON text (never written back to FBC). */
  readonly objects: readonly string[];
  /** The first object whose kind is ClusterServiceVersion, as JSON text; '' when none. */
  readonly csvJson: string;
  readonly position: BlobPosition;
}

export interface FbcPackageScopedReference {
  readonly schema: string;
  readonly name: string;
}

export interface FbcDeprecationEntry {
  readonly reference: FbcPackageScopedReference;
  readonly message: string;
}

export interface FbcDeprecation {
  readonly schema: string;
  readonly package: string;
  readonly entries: readonly FbcDeprecationEntry[];
  readonly position: BlobPosition;
}

/** A problem found while loading: what, where, and how to fix it. */
export interface LoadProblem {
  readonly code: string;
  /** Upstream's message, verbatim where upstream has one. */
  readonly message: string;
  readonly file: string;
  readonly line?: number;
  readonly hint: string;
}

export interface DeclarativeConfig {
  readonly packages: readonly FbcPackage[];
  readonly channels: readonly FbcChannel[];
  readonly bundles: readonly FbcBundle[];
  readonly deprecations: readonly FbcDeprecation[];
  /** Blobs of any other schema, kept verbatim. */
  readonly others: readonly Meta[];
  /** Every file that was read (relative paths, sorted). */
  readonly files: readonly string[];
  /** Every load problem; the config holds whatever loaded cleanly. */
  readonly errors: readonly LoadProblem[];
}

export const schemaPackage = 'olm.package';
export const schemaChannel = 'olm.channel';
export const schemaBundle = 'olm.bundle';
export const schemaDeprecations = 'olm.deprecations';

/** Text naming a blob position: `pkg/catalog.yaml:12`. */
export function formatPosition(position: { readonly file?: string; readonly line?: number }): string {
  if (position.file === undefined) return '';
  return position.line === undefined ? position.file : `${position.file}:${position.line}`;
}

import type { APIServiceDescription, CRDDescription, GroupVersionKind, InstallMode } from '@olm/api';

/**
 * The `packages.operators.coreos.com/v1` PackageManifest, field for field as upstream's
 * packageserver serves it (JSON names included: `description`, `nativeApis`, `base64data`).
 */
export const packagesGroup = 'packages.operators.coreos.com';
export const packagesVersion = 'v1';
export const packagesApiVersion = `${packagesGroup}/${packagesVersion}`;
export const packageManifestKind = 'PackageManifest';
export const packageManifestPlural = 'packagemanifests';

export interface Deprecation {
  readonly message: string;
}

export interface AppLink {
  readonly name?: string;
  readonly url?: string;
}

export interface Maintainer {
  readonly name?: string;
  readonly email?: string;
}

export interface Icon {
  readonly base64data?: string;
  readonly mediatype?: string;
}

/** What a channel head's CSV says about itself, trimmed as upstream trims it. */
export interface CsvDescription {
  readonly displayName?: string;
  readonly icon?: readonly Icon[];
  readonly version?: string;
  readonly provider: AppLink;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly keywords?: readonly string[];
  readonly links?: readonly AppLink[];
  readonly maintainers?: readonly Maintainer[];
  readonly maturity?: string;
  /** The CSV's `spec.description` (upstream's `LongDescription`). */
  readonly description?: string;
  readonly installModes?: readonly InstallMode[];
  readonly customresourcedefinitions: { readonly owned?: readonly CRDDescription[]; readonly required?: readonly CRDDescription[] };
  readonly apiservicedefinitions: { readonly owned?: readonly APIServiceDescription[]; readonly required?: readonly APIServiceDescription[] };
  readonly nativeApis?: readonly GroupVersionKind[];
  readonly minKubeVersion?: string;
  /** Images of the install strategy's containers and `spec.relatedImages`, sorted. */
  readonly relatedImages?: readonly string[];
}

/** One bundle of a channel. */
export interface ChannelEntry {
  readonly name: string;
  readonly version?: string;
  readonly deprecation?: Deprecation;
}

export interface PackageChannel {
  readonly name: string;
  /** The channel head's CSV name. */
  readonly currentCSV: string;
  readonly currentCSVDesc: CsvDescription;
  /** Every bundle of the channel, newest version first. */
  readonly entries: readonly ChannelEntry[];
  readonly deprecation?: Deprecation;
}

export interface PackageManifestStatus {
  readonly catalogSource: string;
  readonly catalogSourceDisplayName: string;
  readonly catalogSourcePublisher: string;
  readonly catalogSourceNamespace: string;
  /** The provider of the default channel's head CSV. */
  readonly provider: AppLink;
  readonly packageName: string;
  readonly channels: readonly PackageChannel[];
  readonly defaultChannel: string;
  readonly deprecation?: Deprecation;
}

export interface PackageManifestMetadata {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly creationTimestamp?: string;
  readonly resourceVersion?: string;
}

export interface PackageManifest {
  readonly apiVersion: typeof packagesApiVersion;
  readonly kind: typeof packageManifestKind;
  readonly metadata: PackageManifestMetadata;
  readonly spec: Record<string, never>;
  readonly status: PackageManifestStatus;
}

/** The namespace and name of the CatalogSource a manifest came from. */
export interface CatalogKey {
  readonly namespace: string;
  readonly name: string;
}

export function catalogKeyString(key: CatalogKey): string {
  return `${key.namespace}/${key.name}`;
}

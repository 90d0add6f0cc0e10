/**
 * The messages of the registry gRPC API (`api.Registry`), as plain objects with the wire field
 * names (`csvName`, `bundlePath`, …). Strings are never undefined: proto3 defaults are filled in.
 */

export interface ApiGroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

export interface ApiDeprecation {
  readonly message: string;
}

/** A `Dependency` / `Property`: `value` is JSON text. */
export interface ApiTypedValue {
  readonly type: string;
  readonly value: string;
}

export interface ApiBundle {
  readonly csvName: string;
  readonly packageName: string;
  readonly channelName: string;
  readonly csvJson: string;
  readonly object: readonly string[];
  /** The bundle image. */
  readonly bundlePath: string;
  readonly providedApis: readonly ApiGroupVersionKind[];
  readonly requiredApis: readonly ApiGroupVersionKind[];
  readonly version: string;
  readonly skipRange: string;
  readonly dependencies: readonly ApiTypedValue[];
  readonly properties: readonly ApiTypedValue[];
  readonly replaces: string;
  readonly skips: readonly string[];
  readonly deprecation?: ApiDeprecation;
}

export interface ApiChannel {
  readonly name: string;
  /** The channel head. */
  readonly csvName: string;
  readonly deprecation?: ApiDeprecation;
}

export interface ApiPackage {
  readonly name: string;
  readonly channels: readonly ApiChannel[];
  readonly defaultChannelName: string;
  readonly deprecation?: ApiDeprecation;
}

export interface ApiChannelEntry {
  readonly packageName: string;
  readonly channelName: string;
  readonly bundleName: string;
  readonly replaces: string;
}

/** A GVK query (`GetAllProvidersRequest` and friends); `plural` is accepted and ignored, as upstream. */
export interface ApiGvkQuery {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural?: string;
}

/** The RPC names of `api.Registry`, in proto order. */
export const registryRpcNames = [
  'ListPackages',
  'GetPackage',
  'GetBundle',
  'GetBundleForChannel',
  'GetChannelEntriesThatReplace',
  'GetBundleThatReplaces',
  'GetChannelEntriesThatProvide',
  'GetLatestChannelEntriesThatProvide',
  'GetDefaultBundleThatProvides',
  'ListBundles',
] as const;

export type RegistryRpcName = (typeof registryRpcNames)[number];

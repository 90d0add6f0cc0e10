import type { ApiBundle, ApiPackage } from '@olm/registry';
import type { RegistryPackage } from './build-package-manifest.js';

/**
 * The registry queries a PackageManifest needs. `@olm/registry`'s gRPC `RegistryClient` has them
 * (any `opm serve`-compatible server); tests and other sources can supply their own.
 */
export interface PackageQueries {
  listPackages(): Promise<string[]>;
  getPackage(name: string): Promise<ApiPackage>;
  getBundleForChannel(packageName: string, channelName: string): Promise<ApiBundle>;
  listBundles(): AsyncIterable<ApiBundle>;
}

export interface RegistryContents {
  readonly packages: RegistryPackage[];
  /** Packages or bundle lists that could not be read; the rest is still served. */
  readonly problems: string[];
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Reads every package of a registry as upstream's packageserver does: `ListPackages`, then
 * `GetPackage` and `GetBundleForChannel` (the head, with its CSV) per channel, plus one
 * `ListBundles` for the channel entries. A package that cannot be read is left out with a
 * problem; an unreachable registry (ListPackages fails) throws.
 */
export async function readRegistry(queries: PackageQueries, options: { readonly concurrency?: number } = {}): Promise<RegistryContents> {
  const problems: string[] = [];
  const names = await queries.listPackages();
  const bundles = new Map<string, Map<string, Pick<ApiBundle, 'csvName' | 'version' | 'deprecation'>[]>>();
  try {
    for await (const bundle of queries.listBundles()) {
      const channels = bundles.get(bundle.packageName) ?? new Map<string, Pick<ApiBundle, 'csvName' | 'version' | 'deprecation'>[]>();
      bundles.set(bundle.packageName, channels);
      const entries = channels.get(bundle.channelName) ?? [];
      channels.set(bundle.channelName, entries);
      entries.push({ csvName: bundle.csvName, version: bundle.version, ...(bundle.deprecation ? { deprecation: bundle.deprecation } : {}) });
    }
  } catch (error) {
    bundles.clear();
    problems.push(`cannot list bundles, channel entries left empty: ${(error as Error).message}`);
  }
  const packages: RegistryPackage[] = [];
  await forEachLimited([...names].sort(), options.concurrency ?? 8, async (name) => {
    let pkg: ApiPackage;
    try {
      pkg = await queries.getPackage(name);
    } catch (error) {
      problems.push(`package ${name}: left out, cannot get it: ${(error as Error).message}`);
      return;
    }
    const heads = new Map<string, ApiBundle | Error>();
    for (const channel of pkg.channels) {
      heads.set(channel.name, await queries.getBundleForChannel(name, channel.name).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))));
    }
    packages.push({ package: pkg, heads, bundles: bundles.get(name) ?? new Map() });
  });
  packages.sort((left, right) => (left.package.name < right.package.name ? -1 : left.package.name > right.package.name ? 1 : 0));
  return { packages, problems };
}

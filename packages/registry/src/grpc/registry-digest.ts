import { createHash } from 'node:crypto';
import type { ApiPackage } from './api-types.js';
import type { RegistryClient } from './client.js';

export interface RegistryDigestOptions {
  /** Deadline of the whole digest, all calls together. Default 30 s. */
  readonly deadlineMs?: number;
  /** `GetPackage` calls in flight at once. Default 8. */
  readonly concurrency?: number;
}

/**
 * A fingerprint of what a registry serves, from `ListPackages` and one `GetPackage` per package:
 * package names, default channels, channel names and heads, and deprecation messages, hashed
 * (`sha256:<hex>`) in a canonical order. It changes when a republished catalog gets a new channel
 * head, channel or package, which is what moves Subscriptions, at a small fraction of the cost of
 * `ListBundles`. Edges or properties that change below unchanged heads do not change it.
 * Works with any `api.Registry` server (ours or `opm serve`); rejects as the calls do.
 */
export async function registryContentDigest(client: RegistryClient, options: RegistryDigestOptions = {}): Promise<string> {
  const deadlineAt = Date.now() + (options.deadlineMs ?? 30_000);
  const remaining = () => ({ deadlineMs: Math.max(1, deadlineAt - Date.now()) });
  const names = [...new Set(await client.listPackages(remaining()))].sort();
  const packages: ApiPackage[] = new Array(names.length);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const index = next++;
      packages[index] = await client.getPackage(names[index]!, remaining());
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 8, names.length)) }, worker));
  const canonical = packages.map((pkg) => [
    pkg.name,
    pkg.defaultChannelName,
    pkg.deprecation?.message ?? null,
    [...pkg.channels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((channel) => [channel.name, channel.csvName, channel.deprecation?.message ?? null]),
  ]);
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical)).digest('hex')}`;
}

import { goQuote } from '@olm/go-format';

/** What channel ordering needs from an entry. */
export interface ChannelMember {
  readonly name: string;
  readonly replaces?: string | undefined;
  readonly skips?: readonly string[] | undefined;
}

/**
 * Orders one channel's entries newest first by following `replaces` from the channel head, as
 * upstream's `sortChannel`: entries skipped by another entry are left out, and a channel must form
 * exactly one replacement chain. Throws upstream's messages otherwise.
 */
export function sortChannel<T extends ChannelMember>(entries: readonly T[], channel: string, packageName: string): T[] {
  if (entries.length === 0) return [];
  const byName = new Map<string, T>();
  for (const entry of entries) byName.set(entry.name, entry);
  const replacedBy = new Set<T>();
  const replaces = new Map<T, T>();
  const skipped = new Set<string>();
  for (const entry of entries) {
    const replaced = entry.replaces ? byName.get(entry.replaces) : undefined;
    if (replaced) {
      replacedBy.add(replaced);
      replaces.set(entry, replaced);
    }
    for (const skip of entry.skips ?? []) {
      const target = byName.get(skip);
      if (target) {
        replacedBy.add(target);
        skipped.add(skip);
      }
    }
  }
  const heads = entries.filter((entry) => !replacedBy.has(entry));
  if (heads.length === 0) {
    throw new Error(`no channel heads (entries not replaced by another entry) found in channel ${goQuote(channel)} of package ${goQuote(packageName)}`);
  }
  const chains: T[][] = [];
  for (const head of heads) {
    const chain: T[] = [];
    const visited = new Set<T>();
    let current: T | undefined = head;
    while (current) {
      visited.add(current);
      if (!skipped.has(current.name)) chain.push(current);
      const next = replaces.get(current);
      if (next && visited.has(next)) {
        throw new Error(
          `a cycle exists in the chain of replacement beginning with ${goQuote(head.name)} in channel ${goQuote(channel)} of package ${goQuote(packageName)}`,
        );
      }
      current = next;
    }
    chains.push(chain);
  }
  if (chains.length > 1) {
    const described = chains.map((chain) =>
      chain.length === 0 ? '[]' : chain.length === 1 ? chain[0]!.name : `${chain[0]!.name}...${chain[chain.length - 1]!.name}`,
    );
    throw new Error(
      `a unique replacement chain within a channel is required to determine the relative order between channel entries, but ${chains.length} replacement chains were found in channel ${goQuote(channel)} of package ${goQuote(packageName)}: ${described.join(', ')}`,
    );
  }
  return chains[0]!;
}

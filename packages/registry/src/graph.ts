import { OlmError } from '@olm/core';
import type { CatalogChannel, CatalogPackage, ChannelEntry } from '@olm/core';
import { parseRange, parseVersion } from '@olm/semver-range';
import type { Version, VersionRange } from '@olm/semver-range';
import { RegistryErrorCodes } from './errors.js';
import { compareStrings, goQuote } from '@olm/go-format';

/**
 * Update-graph queries over one channel, with upstream's semantics:
 * - `channelHead`: opm's head (the one entry no other entry replaces or skips);
 * - `sortChannel`: OLM's resolver order (walk `replaces` from the head, leaving out skipped entries);
 * - `upgradeCandidates`: what OLM offers an installed bundle (entries that replace or skip it, or
 *   whose skipRange holds its version), closest to the head first;
 * - `upgradePath`: the hops a subscription takes, one resolution at a time, to the head.
 */

function graphError(message: string, hint: string): OlmError {
  return new OlmError(RegistryErrorCodes.graph, message, { details: { hint } });
}

/** The channel head as opm computes it (`model.Channel.Head`); throws with opm's message otherwise. */
export function channelHead(channel: CatalogChannel): ChannelEntry {
  const incoming = new Set<string>();
  for (const entry of channel.entries) {
    if (entry.replaces !== undefined && entry.replaces !== '') incoming.add(entry.replaces);
    for (const skip of entry.skips ?? []) incoming.add(skip);
  }
  const heads = channel.entries.filter((entry) => !incoming.has(entry.name));
  if (heads.length === 0) throw graphError('no channel head found in graph', 'exactly one entry must be neither replaced nor skipped by another entry');
  if (heads.length > 1) {
    throw graphError(
      `multiple channel heads found in graph: ${heads.map((entry) => entry.name).sort(compareStrings).join(', ')}`,
      'link the entries into one upgrade graph: every head but the newest should be replaced or skipped by a newer entry',
    );
  }
  return heads[0] as ChannelEntry;
}

/**
 * Orders a channel's entries as OLM's resolver does (`sortChannel`): the walk along `replaces`
 * from the head, leaving out entries some entry skips. Errors are OLM's, verbatim.
 */
export function sortChannel(channel: CatalogChannel): ChannelEntry[] {
  const { entries } = channel;
  if (entries.length === 0) return [];
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  const replacedBy = new Set<string>();
  const replacesOf = new Map<string, ChannelEntry>();
  const skipped = new Set<string>();
  for (const entry of entries) {
    const replaced = entry.replaces === undefined ? undefined : byName.get(entry.replaces);
    if (replaced !== undefined) {
      replacedBy.add(replaced.name);
      replacesOf.set(entry.name, replaced);
    }
    for (const skip of entry.skips ?? []) {
      if (byName.has(skip)) {
        replacedBy.add(skip);
        skipped.add(skip);
      }
    }
  }
  const heads = entries.filter((entry) => !replacedBy.has(entry.name));
  const where = `in channel ${goQuote(channel.name)} of package ${goQuote(channel.package)}`;
  if (heads.length === 0) {
    throw graphError(`no channel heads (entries not replaced by another entry) found ${where}`, 'break the loop in replaces/skips so that one entry is the newest');
  }
  const chains = heads.map((head) => {
    const chain: ChannelEntry[] = [];
    const visited = new Set<string>();
    let current: ChannelEntry | undefined = head;
    while (current !== undefined) {
      visited.add(current.name);
      if (!skipped.has(current.name)) chain.push(current);
      const next = replacesOf.get(current.name);
      if (next === undefined) break;
      if (visited.has(next.name)) {
        throw graphError(`a cycle exists in the chain of replacement beginning with ${goQuote(head.name)} ${where}`, 'remove the replaces edge that closes the loop');
      }
      current = next;
    }
    return chain;
  });
  if (chains.length > 1) {
    const described = chains.map((chain) =>
      chain.length === 0 ? '[]' : chain.length === 1 ? (chain[0]?.name ?? '') : `${chain[0]?.name ?? ''}...${chain[chain.length - 1]?.name ?? ''}`,
    );
    throw graphError(
      `a unique replacement chain within a channel is required to determine the relative order between channel entries, but ${chains.length} replacement chains were found ${where}: ${described.join(', ')}`,
      'link the chains: the newest entry of each older chain should be replaced or skipped by an entry of the newer one',
    );
  }
  return chains[0] ?? [];
}

/** An installed bundle: its name (CSV name) and version, as OLM knows it from the cluster. */
export interface InstalledBundle {
  readonly name: string;
  /** The installed version; without it skipRange matches nothing. */
  readonly version?: string | Version;
}

function parsedRange(entry: ChannelEntry, cache: Map<string, VersionRange | null>): VersionRange | null {
  if (entry.skipRange === undefined || entry.skipRange === '') return null;
  let range = cache.get(entry.skipRange);
  if (range === undefined) {
    try {
      range = parseRange(entry.skipRange);
    } catch {
      range = null; // OLM: a skipRange that does not parse never matches
    }
    cache.set(entry.skipRange, range);
  }
  return range;
}

function toVersion(version: string | Version | undefined): Version | undefined {
  if (version === undefined) return undefined;
  if (typeof version !== 'string') return version;
  try {
    return parseVersion(version);
  } catch {
    return undefined;
  }
}

/** Why an entry is offered as an upgrade from the installed bundle. */
export type UpgradeReason = 'replaces' | 'skips' | 'skipRange';

/** True when `entry` upgrades `installed`, and how (OLM's `Or(SkipRangeIncludes, Replaces)`). */
export function upgradeReason(entry: ChannelEntry, installed: InstalledBundle, rangeCache = new Map<string, VersionRange | null>()): UpgradeReason | undefined {
  if (entry.replaces === installed.name) return 'replaces';
  if ((entry.skips ?? []).includes(installed.name)) return 'skips';
  const version = toVersion(installed.version);
  const range = parsedRange(entry, rangeCache);
  if (version !== undefined && range !== null && range.test(version)) return 'skipRange';
  return undefined;
}

/**
 * The entries of `channel` OLM would upgrade `installed` to, closest to the head first (the
 * solver's preference). Entries left out of `sortChannel` (skipped ones) are never candidates.
 * Throws `OLM_REGISTRY_GRAPH` with OLM's message when the channel cannot be ordered.
 */
export function upgradeCandidates(channel: CatalogChannel, installed: InstalledBundle): ChannelEntry[] {
  const cache = new Map<string, VersionRange | null>();
  return sortChannel(channel).filter((entry) => entry.name !== installed.name && upgradeReason(entry, installed, cache) !== undefined);
}

/** One hop of an upgrade path. */
export interface UpgradeHop {
  readonly from: string;
  readonly to: string;
  readonly reason: UpgradeReason;
}

/**
 * The upgrade path a subscription on `channelName` follows from `installed` to the channel head,
 * one resolution (hop) at a time, each time taking OLM's preferred candidate (the one closest to
 * the head). Versions of later hops come from the package's bundles. Empty when `installed` is
 * already the head or has no successor.
 */
export function upgradePath(catalogPackage: CatalogPackage, channelName: string, installed: InstalledBundle): UpgradeHop[] {
  const channel = catalogPackage.channels.get(channelName);
  if (channel === undefined) {
    throw new OlmError(RegistryErrorCodes.notFound, `package ${goQuote(catalogPackage.name)}, channel ${goQuote(channelName)} not found`, {
      details: { hint: `use one of: ${[...catalogPackage.channels.keys()].join(', ')}` },
    });
  }
  const cache = new Map<string, VersionRange | null>();
  const ordered = sortChannel(channel);
  const hops: UpgradeHop[] = [];
  const visited = new Set<string>([installed.name]);
  let current: InstalledBundle = installed;
  while (true) {
    let next: ChannelEntry | undefined;
    let reason: UpgradeReason | undefined;
    for (const entry of ordered) {
      if (entry.name === current.name) continue;
      reason = upgradeReason(entry, current, cache);
      if (reason !== undefined) {
        next = entry;
        break;
      }
    }
    if (next === undefined || reason === undefined) return hops;
    if (visited.has(next.name)) {
      throw graphError(
        `upgrade path from ${goQuote(installed.name)} loops back to ${goQuote(next.name)} in channel ${goQuote(channelName)} of package ${goQuote(catalogPackage.name)}`,
        'a skipRange or skips edge points back to a newer entry; narrow the skipRange so it excludes newer versions',
      );
    }
    visited.add(next.name);
    hops.push({ from: current.name, to: next.name, reason });
    const bundle = catalogPackage.bundles.get(next.name);
    current = bundle === undefined ? { name: next.name } : { name: next.name, version: bundle.version };
  }
}

/** A drawable edge: `from` (the newer entry) supersedes `to` by `kind`. */
export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: UpgradeReason;
  /** The range text, for skipRange edges. */
  readonly label?: string;
}

export interface ChannelGraph {
  readonly package: string;
  readonly channel: string;
  readonly head?: string;
  /** Entry names in channel order. */
  readonly nodes: readonly string[];
  readonly edges: readonly GraphEdge[];
  /** The bundle version of each entry the package has a bundle for. */
  readonly versions?: Readonly<Record<string, string>>;
  /** `olm.deprecations` messages: of entries (bundle deprecations), and of the channel or package as a whole. */
  readonly deprecations?: { readonly entries: Readonly<Record<string, string>>; readonly channel?: string; readonly package?: string };
}

/**
 * The edges of a channel: `replaces` and `skips` as written, and a skipRange edge to every entry of
 * the channel whose version is in range (as opm's mermaid output draws them).
 */
export function channelGraph(catalogPackage: CatalogPackage, channel: CatalogChannel): ChannelGraph {
  const edges: GraphEdge[] = [];
  const cache = new Map<string, VersionRange | null>();
  for (const entry of channel.entries) {
    if (entry.replaces !== undefined && entry.replaces !== '') edges.push({ from: entry.name, to: entry.replaces, kind: 'replaces' });
    for (const skip of entry.skips ?? []) edges.push({ from: entry.name, to: skip, kind: 'skips' });
    const range = parsedRange(entry, cache);
    if (range === null) continue;
    for (const other of channel.entries) {
      if (other.name === entry.name) continue;
      const version = toVersion(catalogPackage.bundles.get(other.name)?.version);
      if (version !== undefined && range.test(version)) edges.push({ from: entry.name, to: other.name, kind: 'skipRange', label: entry.skipRange ?? '' });
    }
  }
  let head: string | undefined;
  try {
    head = channelHead(channel).name;
  } catch {
    head = undefined;
  }
  const versions: Record<string, string> = {};
  for (const entry of channel.entries) {
    const version = catalogPackage.bundles.get(entry.name)?.version;
    if (version !== undefined) versions[entry.name] = version;
  }
  return {
    package: catalogPackage.name,
    channel: channel.name,
    ...(head === undefined ? {} : { head }),
    nodes: channel.entries.map((entry) => entry.name),
    edges,
    versions,
    deprecations: deprecationsOf(catalogPackage, channel),
  };
}

function deprecationsOf(catalogPackage: CatalogPackage, channel: CatalogChannel): NonNullable<ChannelGraph['deprecations']> {
  const members = new Set(channel.entries.map((entry) => entry.name));
  const entries: Record<string, string> = {};
  let channelMessage: string | undefined;
  let packageMessage: string | undefined;
  for (const deprecation of catalogPackage.deprecations ?? []) {
    const { schema, name } = deprecation.reference;
    if (schema === 'olm.bundle' && name !== undefined && members.has(name)) entries[name] = deprecation.message;
    if (schema === 'olm.channel' && name === channel.name) channelMessage = deprecation.message;
    if (schema === 'olm.package') packageMessage = deprecation.message;
  }
  return { entries, ...(channelMessage === undefined ? {} : { channel: channelMessage }), ...(packageMessage === undefined ? {} : { package: packageMessage }) };
}

function mermaidId(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, '_');
}

function mermaidLabel(text: string): string {
  return JSON.stringify(text).replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Mermaid flowchart of channel graphs (one subgraph per channel), newest on the left. */
export function renderMermaid(graphs: readonly ChannelGraph[]): string {
  const lines = ['graph LR'];
  const byPackage = new Map<string, ChannelGraph[]>();
  for (const graph of graphs) byPackage.set(graph.package, [...(byPackage.get(graph.package) ?? []), graph]);
  for (const [packageName, packageGraphs] of [...byPackage].sort(([a], [b]) => compareStrings(a, b))) {
    lines.push(`  %% package ${JSON.stringify(packageName)}`, `  subgraph ${mermaidLabel(packageName)}`);
    for (const graph of [...packageGraphs].sort((a, b) => compareStrings(a.channel, b.channel))) {
      const channelId = mermaidId(`${graph.package}-${graph.channel}`);
      lines.push(`    %% channel ${JSON.stringify(graph.channel)}`, `    subgraph ${channelId}[${mermaidLabel(graph.channel)}]`);
      const node = (name: string): string => `${mermaidId(`${channelId}-${name}`)}[${mermaidLabel(name)}]`;
      for (const name of graph.nodes) lines.push(`      ${node(name)}${name === graph.head ? ':::head' : ''}`);
      for (const edge of graph.edges) {
        const label = edge.kind === 'skipRange' ? mermaidLabel(`skipRange(${edge.label ?? ''})`) : edge.kind;
        lines.push(`      ${node(edge.from)}-- ${label} --> ${node(edge.to)}`);
      }
      lines.push('    end');
    }
    lines.push('  end');
  }
  lines.push('  classDef head stroke-width:3px');
  return `${lines.join('\n')}\n`;
}

function dotQuote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Graphviz DOT of channel graphs (one cluster per channel). */
export function renderDot(graphs: readonly ChannelGraph[]): string {
  const lines = ['digraph catalog {', '  rankdir=LR;', '  node [shape=box];'];
  const sorted = [...graphs].sort((a, b) => compareStrings(a.package, b.package) || compareStrings(a.channel, b.channel));
  sorted.forEach((graph, index) => {
    const id = (name: string): string => dotQuote(`${graph.package}/${graph.channel}/${name}`);
    lines.push(`  subgraph cluster_${index} {`, `    label=${dotQuote(`${graph.package} / ${graph.channel}`)};`);
    for (const name of graph.nodes) lines.push(`    ${id(name)} [label=${dotQuote(name)}${name === graph.head ? ', penwidth=3' : ''}];`);
    for (const edge of graph.edges) {
      const style = edge.kind === 'replaces' ? '' : edge.kind === 'skips' ? ', style=dashed' : ', style=dotted';
      const label = edge.kind === 'skipRange' ? `skipRange(${edge.label ?? ''})` : edge.kind;
      lines.push(`    ${id(edge.from)} -> ${id(edge.to)} [label=${dotQuote(label)}${style}];`);
    }
    lines.push('  }');
  });
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

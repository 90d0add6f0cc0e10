import { compareStrings } from '@olm/go-format';
import { compareVersions, type Version } from '@olm/semver-range';

/** The channel archetypes of the semver template, least stable first. */
export const archetypes = ['candidate', 'fast', 'stable'] as const;
export type Archetype = (typeof archetypes)[number];
export type StreamType = 'major' | 'minor';

/** Minor channels rank above major ones when neither is the preferred type (upstream's order). */
const streamRank: Record<StreamType, number> = { major: 1, minor: 2 };

export interface SemverChannelOptions {
  readonly generateMajorChannels: boolean;
  readonly generateMinorChannels: boolean;
  readonly defaultChannelTypePreference: StreamType;
}

export interface GeneratedEntry {
  readonly name: string;
  replaces: string;
  skips: string[];
}

export interface GeneratedChannels {
  /** By name, in byte order of their names. */
  readonly channels: ReadonlyArray<{ readonly name: string; readonly entries: readonly GeneratedEntry[] }>;
  /** The most stable channel created (see `isMoreStable`). */
  readonly defaultChannel: string;
}

interface Placement {
  readonly archetype: Archetype;
  readonly kind: StreamType;
  readonly version: Version;
  readonly entry: GeneratedEntry;
}

const channelName = (archetype: Archetype, kind: StreamType, version: Version) =>
  kind === 'major' ? `${archetype}-v${version.major}` : `${archetype}-v${version.major}.${version.minor}`;

/**
 * Whether a new channel beats the best so far as the package's default: a more stable archetype,
 * then a higher version (of the bundle that opened the channel), then the preferred stream type,
 * then minor over major. Upstream compares exactly these, in this order.
 */
function isMoreStable(a: Placement, b: Placement | undefined, preference: StreamType): boolean {
  if (b === undefined) return true;
  const byArchetype = archetypes.indexOf(a.archetype) - archetypes.indexOf(b.archetype);
  if (byArchetype !== 0) return byArchetype > 0;
  const byVersion = compareVersions(a.version, b.version);
  if (byVersion !== 0) return byVersion > 0;
  if (a.kind === b.kind) return false;
  if (a.kind === preference) return true;
  if (b.kind === preference) return false;
  return streamRank[a.kind] > streamRank[b.kind];
}

/**
 * Links each channel's entries as upstream's semver template does: walking the placements by
 * archetype, stream type and version, the highest patch of each minor version replaces the highest of
 * the previous minor version and skips every lower version seen since the last archetype, type or
 * major-version change (edges never cross a major version).
 */
function linkEntries(placements: readonly Placement[]): void {
  const sorted = [...placements].sort(
    (a, b) => archetypes.indexOf(a.archetype) - archetypes.indexOf(b.archetype) || streamRank[a.kind] - streamRank[b.kind] || compareVersions(a.version, b.version),
  );
  let previousMinorHead = '';
  let skips = new Set<string>();
  const close = (placement: Placement) => {
    placement.entry.replaces = previousMinorHead;
    placement.entry.skips = [...skips].filter((name) => name !== previousMinorHead).sort(compareStrings);
  };
  for (let index = 1; index < sorted.length; index += 1) {
    const previous = sorted[index - 1]!;
    const current = sorted[index]!;
    const sameStream = previous.archetype === current.archetype && previous.kind === current.kind && previous.version.major === current.version.major;
    const sameMinor = sameStream && previous.version.minor === current.version.minor;
    if (!sameMinor) close(previous);
    if (!sameStream) {
      skips = new Set();
      previousMinorHead = '';
      continue;
    }
    if (!sameMinor) previousMinorHead = previous.entry.name;
    skips.add(previous.entry.name);
  }
  const last = sorted.at(-1);
  const penultimate = sorted.at(-2);
  if (last && penultimate && last.archetype === penultimate.archetype && last.kind === penultimate.kind && last.version.major === penultimate.version.major) close(last);
}

/** The channels the semver template generates from each archetype's bundles (name → version), and the default channel. */
export function generateSemverChannels(bundles: ReadonlyMap<Archetype, ReadonlyMap<string, Version>>, options: SemverChannelOptions): GeneratedChannels {
  const kinds: StreamType[] = [...(options.generateMajorChannels ? ['major' as const] : []), ...(options.generateMinorChannels ? ['minor' as const] : [])];
  const channels = new Map<string, GeneratedEntry[]>();
  const placements: Placement[] = [];
  let best: (Placement & { channel: string }) | undefined;
  for (const archetype of archetypes) {
    const byVersion = [...(bundles.get(archetype) ?? new Map<string, Version>())].sort(([, a], [, b]) => compareVersions(a, b));
    for (const [name, version] of byVersion) {
      for (const kind of kinds) {
        const channel = channelName(archetype, kind, version);
        const entry: GeneratedEntry = { name, replaces: '', skips: [] };
        const placement = { archetype, kind, version, entry };
        if (!channels.has(channel)) {
          channels.set(channel, []);
          if (isMoreStable(placement, best, options.defaultChannelTypePreference)) best = { ...placement, channel };
        }
        channels.get(channel)!.push(entry);
        placements.push(placement);
      }
    }
  }
  linkEntries(placements);
  return {
    channels: [...channels].sort(([a], [b]) => compareStrings(a, b)).map(([name, entries]) => ({ name, entries })),
    defaultChannel: best?.channel ?? '',
  };
}

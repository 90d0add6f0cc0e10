import { parseVersion } from '@olm/semver-range';
import { describe, expect, it } from 'vitest';
import { generateSemverChannels } from '../src/index.js';

// The example of upstream's semver template README: 11 versions over Candidate, Fast and Stable.
const candidate = ['0.1.0', '0.1.1', '0.1.2', '0.1.3', '0.2.0', '0.2.1', '0.2.2', '0.3.0', '1.0.0', '1.0.1', '1.1.0'];
const fast = ['0.2.1', '0.2.2', '0.3.0', '1.0.1', '1.1.0'];
const stable = ['1.0.1'];
const byName = (versions: string[]) => new Map(versions.map((version) => [`testoperator.v${version}`, parseVersion(version)]));
const bundles = new Map([
  ['candidate', byName(candidate)],
  ['fast', byName(fast)],
  ['stable', byName(stable)],
] as const);

/** Channel → entries as upstream's README prints them (`name`, then `replaces` and `skips` when set). */
function compact(generated: ReturnType<typeof generateSemverChannels>) {
  return Object.fromEntries(
    generated.channels.map(({ name, entries }) => [
      name,
      entries.map((entry) => ({ name: entry.name.replace('testoperator.', ''), ...(entry.replaces ? { replaces: entry.replaces.replace('testoperator.', '') } : {}), ...(entry.skips.length ? { skips: entry.skips.map((skip) => skip.replace('testoperator.', '')) } : {}) })),
    ]),
  );
}

describe('semver template channels', () => {
  it('generates major channels as upstream’s README shows: skips within a minor version, replaces across minor versions, default stable-v1', () => {
    const generated = generateSemverChannels(bundles, { generateMajorChannels: true, generateMinorChannels: false, defaultChannelTypePreference: 'major' });
    expect(generated.defaultChannel).toBe('stable-v1');
    expect(compact(generated)).toEqual({
      'candidate-v0': [
        { name: 'v0.1.0' },
        { name: 'v0.1.1' },
        { name: 'v0.1.2' },
        { name: 'v0.1.3', skips: ['v0.1.0', 'v0.1.1', 'v0.1.2'] },
        { name: 'v0.2.0' },
        { name: 'v0.2.1' },
        { name: 'v0.2.2', replaces: 'v0.1.3', skips: ['v0.1.0', 'v0.1.1', 'v0.1.2', 'v0.2.0', 'v0.2.1'] },
        { name: 'v0.3.0', replaces: 'v0.2.2', skips: ['v0.1.0', 'v0.1.1', 'v0.1.2', 'v0.1.3', 'v0.2.0', 'v0.2.1'] },
      ],
      'candidate-v1': [{ name: 'v1.0.0' }, { name: 'v1.0.1', skips: ['v1.0.0'] }, { name: 'v1.1.0', replaces: 'v1.0.1', skips: ['v1.0.0'] }],
      'fast-v0': [{ name: 'v0.2.1' }, { name: 'v0.2.2', skips: ['v0.2.1'] }, { name: 'v0.3.0', replaces: 'v0.2.2', skips: ['v0.2.1'] }],
      'fast-v1': [{ name: 'v1.0.1' }, { name: 'v1.1.0', replaces: 'v1.0.1' }],
      'stable-v1': [{ name: 'v1.0.1' }],
    });
  });

  it('generates minor channels as upstream’s README shows, default stable-v1.0', () => {
    const generated = generateSemverChannels(bundles, { generateMajorChannels: false, generateMinorChannels: true, defaultChannelTypePreference: 'minor' });
    expect(generated.defaultChannel).toBe('stable-v1.0');
    expect(compact(generated)).toEqual({
      'candidate-v0.1': [{ name: 'v0.1.0' }, { name: 'v0.1.1' }, { name: 'v0.1.2' }, { name: 'v0.1.3', skips: ['v0.1.0', 'v0.1.1', 'v0.1.2'] }],
      'candidate-v0.2': [{ name: 'v0.2.0' }, { name: 'v0.2.1' }, { name: 'v0.2.2', replaces: 'v0.1.3', skips: ['v0.1.0', 'v0.1.1', 'v0.1.2', 'v0.2.0', 'v0.2.1'] }],
      'candidate-v0.3': [{ name: 'v0.3.0', replaces: 'v0.2.2', skips: ['v0.1.0', 'v0.1.1', 'v0.1.2', 'v0.1.3', 'v0.2.0', 'v0.2.1'] }],
      'candidate-v1.0': [{ name: 'v1.0.0' }, { name: 'v1.0.1', skips: ['v1.0.0'] }],
      'candidate-v1.1': [{ name: 'v1.1.0', replaces: 'v1.0.1', skips: ['v1.0.0'] }],
      'fast-v0.2': [{ name: 'v0.2.1' }, { name: 'v0.2.2', skips: ['v0.2.1'] }],
      'fast-v0.3': [{ name: 'v0.3.0', replaces: 'v0.2.2', skips: ['v0.2.1'] }],
      'fast-v1.0': [{ name: 'v1.0.1' }],
      'fast-v1.1': [{ name: 'v1.1.0', replaces: 'v1.0.1' }],
      'stable-v1.0': [{ name: 'v1.0.1' }],
    });
  });

  it('with both kinds, prefers the channel type asked for as the default', () => {
    const both = { generateMajorChannels: true, generateMinorChannels: true } as const;
    expect(generateSemverChannels(bundles, { ...both, defaultChannelTypePreference: 'minor' }).defaultChannel).toBe('stable-v1.0');
    expect(generateSemverChannels(bundles, { ...both, defaultChannelTypePreference: 'major' }).defaultChannel).toBe('stable-v1');
  });
});

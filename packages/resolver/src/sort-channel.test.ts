import { describe, expect, it } from 'vitest';
import { sortChannel, type ChannelMember } from './sort-channel.js';

// upstream TestSortChannel
const names = (entries: ChannelMember[]) => sortChannel(entries, 'channel', 'package').map((entry) => entry.name);

describe('sortChannel', () => {
  it('returns nothing for an empty channel', () => {
    expect(names([])).toEqual([]);
  });

  it('orders a wrinkle-free chain newest first, whatever the input order', () => {
    const chain = [{ name: 'b', replaces: 'a' }, { name: 'a' }, { name: 'c', replaces: 'b' }];
    expect(names(chain)).toEqual(['c', 'b', 'a']);
    expect(names([...chain].reverse())).toEqual(['c', 'b', 'a']);
  });

  it('leaves out skipped entries', () => {
    expect(names([{ name: 'a' }, { name: 'b', replaces: 'a' }, { name: 'c', replaces: 'a', skips: ['b'] }])).toEqual(['c', 'a']);
  });

  it('ignores a replaces target outside the channel', () => {
    expect(names([{ name: 'b', replaces: 'gone' }, { name: 'c', replaces: 'b' }])).toEqual(['c', 'b']);
  });

  it('reports a channel without heads', () => {
    expect(() => names([{ name: 'a', replaces: 'b' }, { name: 'b', replaces: 'a' }])).toThrowError(
      'no channel heads (entries not replaced by another entry) found in channel "channel" of package "package"',
    );
  });

  it('reports a cycle below the head', () => {
    expect(() => names([{ name: 'head', replaces: 'a' }, { name: 'a', replaces: 'b' }, { name: 'b', replaces: 'a' }])).toThrowError(
      'a cycle exists in the chain of replacement beginning with "head" in channel "channel" of package "package"',
    );
  });

  it('reports more than one chain', () => {
    expect(() => names([{ name: 'a' }, { name: 'b', replaces: 'a' }, { name: 'x' }])).toThrowError(
      'a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "channel" of package "package": b...a, x',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { decodeGoJson, goSlice, goString, goStruct } from './go-json-decode.js';

const entry = goStruct('declcfg.ChannelEntry', { name: goString, skips: goSlice(goString) });
const channel = goStruct('declcfg.Channel', { name: goString, entries: goSlice(entry) });

describe('decodeGoJson (Go encoding/json semantics)', () => {
  it('matches field names case-insensitively, ignores unknown fields, fills zero values', () => {
    expect(decodeGoJson({ NAME: 'stable', extra: 1, Entries: [{ Name: 'a' }] }, channel)).toEqual({
      value: { name: 'stable', entries: [{ name: 'a', skips: [] }] },
    });
  });

  it('treats null as the zero value', () => {
    expect(decodeGoJson({ name: null, entries: null }, channel).value).toEqual({ name: '', entries: [] });
  });

  it('reports the first type error with the struct and full field path, in sorted key order', () => {
    expect(decodeGoJson({ name: 1, entries: [{ skips: [true] }] }, channel).error).toBe(
      'json: cannot unmarshal array into Go struct field ChannelEntry.entries.skips of type string'.replace('array', 'bool'),
    );
    expect(decodeGoJson({ entries: 'x', name: 1 }, channel).error).toBe(
      'json: cannot unmarshal string into Go struct field Channel.entries of type []declcfg.ChannelEntry',
    );
  });

  it('names a non-object top-level value', () => {
    expect(decodeGoJson([1], channel).error).toBe('json: cannot unmarshal array into Go value of type declcfg.Channel');
  });
});

import { describe, expect, it } from 'vitest';
import { closeMatches, didYouMean, editDistance } from './close-matches.js';

describe('close matches', () => {
  it('measures edit distance', () => {
    expect(editDistance('acme-databse', 'acme-database')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests typos and prefixes, closest first, and nothing far away', () => {
    const packages = ['acme-backup', 'acme-database', 'acme-monitoring', 'etcd'];
    expect(closeMatches('acme-databse', packages)).toEqual(['acme-database']);
    expect(closeMatches('acme', packages)).toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
    expect(closeMatches('ectd', packages)).toEqual(['etcd']);
    expect(closeMatches('postgres', packages)).toEqual([]);
    expect(closeMatches('STABLE', ['stable', 'fast'])).toEqual(['stable']);
  });

  it('words the suggestion', () => {
    expect(didYouMean('acme-databse', ['acme-database'])).toBe('; did you mean acme-database?');
    expect(didYouMean('stabel', ['stable', 'stale'])).toBe('; did you mean stable or stale?');
    expect(didYouMean('x', ['acme-database'])).toBe('');
  });
});

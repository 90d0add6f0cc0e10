import { describe, expect, it } from 'vitest';
import { fnv64a, installedAlongside, installedAlongsideKey, withInstalledAlongside } from './installed-alongside.js';

describe('installed-alongside annotations', () => {
  it('keys each CSV by the FNV-1a hash of "<namespace>/<name>", as upstream', () => {
    expect(installedAlongsideKey({ namespace: 'backup', name: 'acme-database.v1.2.0' })).toBe('operatorframework.io/installed-alongside-cd28fc47bd9d19e9');
    expect(installedAlongsideKey({ namespace: 'ns', name: 'a.v1' })).toBe('operatorframework.io/installed-alongside-a7d914cfd55e05b9');
  });

  it('hashes as 64-bit FNV-1a over the UTF-8 bytes', () => {
    const reference = (text: string) => {
      let hash = 0xcbf29ce484222325n;
      for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return hash.toString(16);
    };
    expect(fnv64a('')).toBe('cbf29ce484222325');
    expect(fnv64a('a')).toBe('af63dc4c8601ec8c');
    for (const text of ['ns/a.v1', 'backup/acme-database.v1.2.0', 'ünïcødé/€', 'x'.repeat(300), ...Array.from({ length: 200 }, (_, index) => `namespace-${index}/operator.v${index}.0.${index * 7}`)]) {
      expect(fnv64a(text), text).toBe(reference(text));
    }
  });

  it('reads the CSVs back, ignoring malformed values and other annotations', () => {
    expect(
      installedAlongside({
        'operatorframework.io/installed-alongside-1': 'ns/a.v1',
        'operatorframework.io/installed-alongside-2': 'no-slash',
        'example.com/other': 'x/y',
      }),
    ).toEqual([{ namespace: 'ns', name: 'a.v1' }]);
  });

  it('replaces every earlier entry and keeps other annotations', () => {
    const before = { 'operatorframework.io/installed-alongside-old': 'ns/gone.v1', keep: 'me' };
    expect(withInstalledAlongside(before, [{ namespace: 'ns', name: 'a.v1' }])).toEqual({
      keep: 'me',
      'operatorframework.io/installed-alongside-a7d914cfd55e05b9': 'ns/a.v1',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { installedAlongside, installedAlongsideKey, withInstalledAlongside } from './installed-alongside.js';

describe('installed-alongside annotations', () => {
  it('keys each CSV by the FNV-1a hash of "<namespace>/<name>", as upstream', () => {
    expect(installedAlongsideKey({ namespace: 'backup', name: 'acme-database.v1.2.0' })).toBe('operatorframework.io/installed-alongside-cd28fc47bd9d19e9');
    expect(installedAlongsideKey({ namespace: 'ns', name: 'a.v1' })).toBe('operatorframework.io/installed-alongside-a7d914cfd55e05b9');
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

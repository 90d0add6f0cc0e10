import { goStruct } from '@olm/go-format';
import { describe, expect, it } from 'vitest';
import { expectedSha224Base62 } from '../test/support.js';
import { generateName, operatorGroupClusterRoleName } from './names.js';

describe('generateName', () => {
  it('reproduces upstream names, short and truncated', () => {
    expect(generateName('myname', ['something'])).toBe('myname-5L9sNXi3Y6mcOevFzYY3WOLIukKOeZwz1pfUlT');
    expect(generateName('name'.repeat(100), ['something', 'else'])).toBe('namenamenamenamenamename-6XtefCelEzfYlFOD1fARIK5vhWVfWfGHja7H3q');
  });

  it('never exceeds 63 characters, even where upstream would write 64', () => {
    const hash = '5L9sNXi3Y6mcOevFzYY3WOLIukKOeZwz1pfUlT';
    const edge = 'b'.repeat(63 - hash.length); // upstream: len(base)+len(hash) == 63 → not cut → 64 characters
    const name = generateName(edge, ['something']);
    expect(name).toHaveLength(63);
    expect(name).toBe(`${'b'.repeat(24)}-${hash}`);
    for (let length = 0; length < 80; length += 1) expect(generateName('x'.repeat(length), ['something']).length).toBeLessThanOrEqual(63);
  });

  it('is stable for equal content and differs for different content', () => {
    expect(generateName('a', ['x', goStruct([['k', 'v']])])).toBe(generateName('a', ['x', goStruct([['k', 'v']])]));
    expect(generateName('a', ['x'])).not.toBe(generateName('a', ['y']));
  });
});

describe('operatorGroupClusterRoleName', () => {
  it('is olm.og.<name>.<suffix>-<base62 sha224 of ns/name/suffix>', () => {
    expect(operatorGroupClusterRoleName('operators', 'global-operators', 'admin')).toBe(
      `olm.og.global-operators.admin-${expectedSha224Base62('operators/global-operators/admin')}`,
    );
  });

  it('cuts a long group name so the whole name fits in 253 characters, hashing the full name', () => {
    const long = 'g'.repeat(300);
    for (const suffix of ['admin', 'edit', 'view']) {
      const hash = expectedSha224Base62(`ns/${long}/${suffix}`);
      const name = operatorGroupClusterRoleName('ns', long, suffix);
      expect(name).toBe(`olm.og.${'g'.repeat(253 - 9 - suffix.length - hash.length)}.${suffix}-${hash}`);
      expect(name).toHaveLength(253);
    }
  });
});

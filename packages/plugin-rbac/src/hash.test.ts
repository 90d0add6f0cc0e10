import { describe, expect, it } from 'vitest';
import { expectedSha224Base62 } from '../test/support.js';
import { fnv64aHex, hashEncodedObject, sha224Base62, toBase62 } from './hash.js';

describe('toBase62', () => {
  it('writes digits, then lower case, then upper case, without leading zeros', () => {
    expect(toBase62(new Uint8Array([0]))).toBe('0');
    expect(toBase62(new Uint8Array([0, 61]))).toBe('Z');
    expect(toBase62(new Uint8Array([62]))).toBe('10');
    expect(toBase62(new Uint8Array([1, 0]))).toBe('48'); // 256 = 4*62 + 8
    expect(toBase62(new Uint8Array([0x36, 0x9b, 0x13, 0xe0]))).toBe('100000'); // 62^5: zeros inside a chunk are kept
  });

  it('agrees with an independent base-62 of sha224', () => {
    for (const text of ['', 'operators/og/admin', 'ünïcode']) expect(sha224Base62(text)).toBe(expectedSha224Base62(text));
    for (let index = 0; index < 300; index += 1) expect(sha224Base62(`text-${index}`)).toBe(expectedSha224Base62(`text-${index}`));
  });
});

describe('hashEncodedObject', () => {
  it('matches upstream generateName test vectors (Go json.Encoder output, trailing newline)', () => {
    expect(hashEncodedObject(['something'])).toBe('5L9sNXi3Y6mcOevFzYY3WOLIukKOeZwz1pfUlT');
    expect(hashEncodedObject(['something', 'else'])).toBe('6XtefCelEzfYlFOD1fARIK5vhWVfWfGHja7H3q');
  });
});

describe('fnv64aHex', () => {
  it('matches the FNV-1a 64 reference vectors, printed like Go %x', () => {
    expect(fnv64aHex('')).toBe('cbf29ce484222325');
    expect(fnv64aHex('a')).toBe('af63dc4c8601ec8c');
    expect(fnv64aHex('foobar')).toBe('85944171f73967e8');
  });

  it('agrees with a plain BigInt FNV-1a 64 on many inputs', () => {
    const reference = (text: string) => {
      let hash = 0xcbf29ce484222325n;
      for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return hash.toString(16);
    };
    for (let index = 0; index < 300; index += 1) {
      const text = `Kind${index}.v${index % 3}.group-ü${index}.example.com`;
      expect(fnv64aHex(text)).toBe(reference(text));
    }
  });
});

/**
 * The hashes upstream OLM puts in RBAC names and labels:
 * - base62 (Go's `big.Int.Text(62)`: digits, then a–z, then A–Z; no leading zeros) of a SHA-224 digest;
 * - FNV-1a 64-bit, printed as lowercase hex without leading zeros (Go's `%x`), for aggregation labels.
 */
import { createHash } from 'node:crypto';
import { goJson } from '@olm/go-format';
import type { GoJsonValue } from './go-json.js';

const base62Digits = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

const chunkDigits = 5;
const chunkBase = 62n ** BigInt(chunkDigits); // 916132832: a chunk fits a Number exactly

/** Big-endian bytes as an unsigned integer, written in base 62 like Go's `big.Int.Text(62)`. */
export function toBase62(bytes: Uint8Array): string {
  let value = BigInt(`0x0${Buffer.from(bytes).toString('hex')}`);
  if (value === 0n) return '0';
  let text = '';
  // Few BigInt divisions (one per five digits); the digits of each chunk come from Number arithmetic.
  while (value > 0n) {
    let chunk = Number(value % chunkBase);
    value /= chunkBase;
    for (let digit = 0; digit < chunkDigits && (chunk > 0 || value > 0n); digit += 1) {
      text = base62Digits[chunk % 62]! + text;
      chunk = Math.floor(chunk / 62);
    }
  }
  return text;
}

/** base62(SHA-224(text)); text is hashed as UTF-8. */
export function sha224Base62(text: string): string {
  return toBase62(createHash('sha224').update(text, 'utf8').digest());
}

/**
 * base62(SHA-224) of `value` written by Go's `json.NewEncoder(…).Encode` — the JSON plus a newline.
 * Upstream's `generateName` hashes this way (checked against its own test vectors).
 */
export function hashEncodedObject(value: GoJsonValue): string {
  return sha224Base62(`${goJson(value)}\n`);
}

/** base62(SHA-224) of `value` written by Go's `json.Marshal` (no newline): the `olm.permissions.hash` values. */
export function hashMarshalledObject(value: GoJsonValue): string {
  return sha224Base62(goJson(value));
}

/**
 * FNV-1a 64-bit of the UTF-8 bytes of `text`, as lowercase hex without leading zeros. Computed on two
 * 32-bit halves: the prime is 2^40 + 0x1b3, so `h * prime = (h << 40) + h * 0x1b3` modulo 2^64.
 */
export function fnv64aHex(text: string): string {
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (const byte of Buffer.from(text, 'utf8')) {
    low = (low ^ byte) >>> 0;
    const lowProduct = low * 0x1b3; // < 2^41: exact
    const carry = Math.floor(lowProduct / 0x100000000);
    high = (Math.imul(high, 0x1b3) + (low << 8) + carry) >>> 0;
    low = lowProduct >>> 0;
  }
  return high === 0 ? low.toString(16) : high.toString(16) + low.toString(16).padStart(8, '0');
}

import { createHash } from 'node:crypto';
import { canonicalJson } from '@olm/controller-runtime';

const base62Alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * An object hash in upstream's form (sha224, written in base62) of the canonical JSON (keys sorted, unset
 * fields left out): the same for the same object whatever order a server returned its keys in.
 */
export function hashOf(value: unknown): string {
  const digest = createHash('sha224').update(canonicalJson(value)).digest('hex');
  let number = BigInt(`0x${digest}`);
  let text = '';
  while (number > 0n) {
    text = base62Alphabet[Number(number % 62n)] + text;
    number /= 62n;
  }
  return text || '0';
}

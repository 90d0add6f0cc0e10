import { createHash } from 'node:crypto';

const base62Alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Upstream's object hash: sha224 of the JSON, written in base62. */
export function hashOf(value: unknown): string {
  const digest = createHash('sha224').update(JSON.stringify(value)).digest('hex');
  let number = BigInt(`0x${digest}`);
  let text = '';
  while (number > 0n) {
    text = base62Alphabet[Number(number % 62n)] + text;
    number /= 62n;
  }
  return text || '0';
}

/**
 * Base64 decoding with Go's `encoding/base64.StdEncoding` rules (padding required, `\r`/`\n`
 * skipped), reporting the same "illegal base64 data at input byte N" offsets upstream reports.
 */
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const decodeTable = new Int16Array(256).fill(-1);
for (let index = 0; index < alphabet.length; index += 1) decodeTable[alphabet.charCodeAt(index)] = index;

export class Base64Error extends Error {
  readonly offset: number;
  constructor(offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
    this.name = 'Base64Error';
    this.offset = offset;
  }
}

function isNewline(code: number): boolean {
  return code === 0x0a || code === 0x0d;
}

/** Finds the first offset Go would reject, or -1 when `text` is valid standard base64. */
export function findBase64Error(text: string): number {
  const length = text.length;
  let position = 0;
  while (position < length) {
    let count = 0;
    let isDone = false;
    while (count < 4) {
      if (position === length) {
        if (count === 0) return -1;
        // A short final quantum: StdEncoding requires padding.
        return position - count;
      }
      const code = text.charCodeAt(position);
      position += 1;
      if (code < 256 && (decodeTable[code] ?? -1) >= 0) {
        count += 1;
        continue;
      }
      if (isNewline(code)) continue;
      if (code !== 0x3d /* = */) return position - 1;
      // Padding.
      if (count < 2) return position - 1;
      if (count === 2) {
        while (position < length && isNewline(text.charCodeAt(position))) position += 1;
        if (position === length) return length;
        if (text.charCodeAt(position) !== 0x3d) return position - 1;
        position += 1;
      }
      while (position < length && isNewline(text.charCodeAt(position))) position += 1;
      if (position < length) return position;
      isDone = true;
      break;
    }
    if (isDone) return -1;
  }
  return -1;
}

/** Decodes like Go's StdEncoding.DecodeString; throws `Base64Error` with Go's offset. */
export function decodeGoBase64(text: string): Buffer {
  const offset = findBase64Error(text);
  if (offset >= 0) throw new Base64Error(offset);
  return Buffer.from(text, 'base64');
}

/**
 * Finds the first JSON syntax error in `text` and describes it as Go's encoding/json scanner
 * does (`invalid character 'o' looking for beginning of value`), with its offset. Only called
 * after JSON.parse failed, to say where and why in upstream's words. Iterative (no recursion).
 */
export interface JsonSyntaxError {
  readonly offset: number;
  readonly message: string;
}

function quoteChar(char: string): string {
  if (char === "'") return "'\\''";
  if (char === '"') return "'\"'";
  const quoted = JSON.stringify(char);
  return `'${quoted.slice(1, -1)}'`;
}

type Context = 'object-key' | 'object-value' | 'array';

function isSpace(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\n' || char === '\r';
}

export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const stack: Context[] = [];
  let position = 0;
  const length = text.length;
  const invalid = (at: number, context: string): JsonSyntaxError => ({ offset: at, message: `invalid character ${quoteChar(text[at] ?? '')} ${context}` });
  const endOfInput = (): JsonSyntaxError => ({ offset: length, message: 'unexpected end of JSON input' });
  const skipSpace = (): void => {
    while (position < length && isSpace(text[position] ?? '')) position += 1;
  };

  // Scans one scalar or opens a container; returns an error or undefined.
  const scanValue = (lookingFor: string): JsonSyntaxError | undefined => {
    skipSpace();
    if (position >= length) return endOfInput();
    const char = text[position] ?? '';
    if (char === '{') {
      position += 1;
      skipSpace();
      if (text[position] === '}') {
        position += 1;
        return undefined;
      }
      stack.push('object-key');
      return scanKey();
    }
    if (char === '[') {
      position += 1;
      skipSpace();
      if (text[position] === ']') {
        position += 1;
        return undefined;
      }
      stack.push('array');
      return scanValue('looking for beginning of value');
    }
    if (char === '"') return scanString();
    if (char === '-' || (char >= '0' && char <= '9')) return scanNumber();
    for (const literal of ['true', 'false', 'null']) {
      if (char !== literal[0]) continue;
      for (let index = 1; index < literal.length; index += 1) {
        if (position + index >= length) return endOfInput();
        if (text[position + index] !== literal[index]) {
          return invalid(position + index, `in literal ${literal} (expecting ${quoteChar(literal[index] ?? '')})`);
        }
      }
      position += literal.length;
      return undefined;
    }
    return invalid(position, lookingFor);
  };

  const scanKey = (): JsonSyntaxError | undefined => {
    skipSpace();
    if (position >= length) return endOfInput();
    if (text[position] !== '"') return invalid(position, 'looking for beginning of object key string');
    const error = scanString();
    if (error !== undefined) return error;
    skipSpace();
    if (position >= length) return endOfInput();
    if (text[position] !== ':') return invalid(position, 'after object key');
    position += 1;
    stack[stack.length - 1] = 'object-value';
    return scanValue('looking for beginning of value');
  };

  const scanString = (): JsonSyntaxError | undefined => {
    position += 1;
    while (position < length) {
      const char = text[position] ?? '';
      if (char === '"') {
        position += 1;
        return undefined;
      }
      if (char === '\\') {
        const escape = text[position + 1];
        if (escape === undefined) return endOfInput();
        if (escape === 'u') {
          for (let index = 2; index < 6; index += 1) {
            const hex = text[position + index];
            if (hex === undefined) return endOfInput();
            if (!/[0-9a-fA-F]/.test(hex)) return invalid(position + index, 'in \\u hexadecimal character escape');
          }
          position += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(escape)) return invalid(position + 1, 'in string escape code');
        position += 2;
        continue;
      }
      if (char < ' ') return invalid(position, 'in string literal');
      position += 1;
    }
    return endOfInput();
  };

  const scanNumber = (): JsonSyntaxError | undefined => {
    if (text[position] === '-') {
      position += 1;
      if (position >= length) return endOfInput();
      const next = text[position] ?? '';
      if (!(next >= '0' && next <= '9')) return invalid(position, 'in numeric literal');
    }
    if (text[position] === '0') position += 1;
    else while (position < length && (text[position] ?? '') >= '0' && (text[position] ?? '') <= '9') position += 1;
    if (text[position] === '.') {
      position += 1;
      if (position >= length) return endOfInput();
      if (!((text[position] ?? '') >= '0' && (text[position] ?? '') <= '9')) return invalid(position, 'after decimal point in numeric literal');
      while (position < length && (text[position] ?? '') >= '0' && (text[position] ?? '') <= '9') position += 1;
    }
    if (text[position] === 'e' || text[position] === 'E') {
      position += 1;
      if (text[position] === '+' || text[position] === '-') position += 1;
      if (position >= length) return endOfInput();
      if (!((text[position] ?? '') >= '0' && (text[position] ?? '') <= '9')) return invalid(position, 'in exponent of numeric literal');
      while (position < length && (text[position] ?? '') >= '0' && (text[position] ?? '') <= '9') position += 1;
    }
    return undefined;
  };

  let error = scanValue('looking for beginning of value');
  while (error === undefined && stack.length > 0) {
    skipSpace();
    if (position >= length) return endOfInput();
    const context = stack[stack.length - 1];
    const char = text[position];
    if (context === 'array') {
      if (char === ',') {
        position += 1;
        error = scanValue('looking for beginning of value');
      } else if (char === ']') {
        position += 1;
        stack.pop();
      } else return invalid(position, 'after array element');
    } else {
      if (char === ',') {
        position += 1;
        stack[stack.length - 1] = 'object-key';
        error = scanKey();
      } else if (char === '}') {
        position += 1;
        stack.pop();
      } else return invalid(position, 'after object key:value pair');
    }
  }
  if (error !== undefined) return error;
  skipSpace();
  if (position < length) return invalid(position, 'after top-level value');
  return undefined;
}

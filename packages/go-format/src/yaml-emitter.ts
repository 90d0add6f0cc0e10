/**
 * Writes a JSON value as YAML byte for byte like upstream's writer (sigs.k8s.io/yaml JSONToYAML →
 * go-yaml v2 → libyaml's emitter): go-yaml's key order, block style with indentless sequences,
 * `{}`/`[]` for empty collections, go-yaml's scalar style choice (double quotes for strings that
 * would read back as another type, literal blocks for multi-line text, plain when allowed, else
 * single quotes) and libyaml's line folding at column 80. Our own implementation of that behaviour.
 */
import { analyzeScalar, bestIndent, bestWidth, compareYamlKeys, formatNumber, isBreakCode, isPrintable, isSpaceChar, readsAsNonString } from './yaml-scalar-analysis.js';

type Style = 'plain' | 'single' | 'double' | 'literal';

const surrogate = /[\uD800-\uDFFF]/;

/** Output with libyaml's column count (characters, not UTF-16 units). */
class Writer {
  readonly parts: string[] = [];
  column = 0;
  #endsWithBreak = true;

  write(chunk: string): void {
    if (chunk === '') return;
    this.parts.push(chunk);
    this.column += surrogate.test(chunk) ? [...chunk].length : chunk.length;
    this.#endsWithBreak = false;
  }

  newline(indent: number): void {
    this.parts.push(`\n${' '.repeat(indent)}`);
    this.column = indent;
    this.#endsWithBreak = indent === 0;
  }

  /** A line break inside a block scalar: no indentation on the (maybe empty) line yet. */
  bareBreak(): void {
    this.parts.push('\n');
    this.column = 0;
    this.#endsWithBreak = true;
  }

  /** True at the start of a fresh line (after a literal block). */
  get isAtLineStart(): boolean {
    return this.column === 0 && this.#endsWithBreak;
  }

  get text(): string {
    return this.parts.join('');
  }
}

function chooseStyle(value: string, isKey: boolean): Style {
  // go-yaml: strings that would read back as another type are double-quoted; text with a newline
  // asks for a literal block; everything else asks for plain. libyaml then downgrades as needed.
  let style: Style = value.includes('\n') ? 'literal' : readsAsNonString(value) ? 'double' : 'plain';
  const analysis = analyzeScalar(value);
  if (style === 'plain') {
    if (!analysis.isBlockPlainAllowed || (value === '' && isKey)) style = 'single';
  }
  if (style === 'single' && !analysis.isSingleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!analysis.isBlockAllowed || isKey)) style = 'double';
  return style;
}

function writePlain(writer: Writer, value: string, indent: number, allowBreaks: boolean): void {
  // Folding happens only at a single space once past column 80; most scalars never get there.
  if (!allowBreaks || !value.includes(' ') || writer.column + value.length <= bestWidth) {
    writer.write(value);
    return;
  }
  let start = 0;
  let spaces = false;
  for (let index = 0; index < value.length; index += 1) {
    if (value.charCodeAt(index) !== 0x20) {
      spaces = false;
      continue;
    }
    // Flush the word before this space, then decide: break here or write the space.
    writer.write(value.slice(start, index));
    start = index + 1;
    if (!spaces && writer.column > bestWidth && value.charCodeAt(index + 1) !== 0x20) writer.newline(indent);
    else writer.write(' ');
    spaces = true;
  }
  writer.write(value.slice(start));
}

function writeSingleQuoted(writer: Writer, value: string, indent: number, allowBreaks: boolean): void {
  const chars = [...value];
  writer.write("'");
  let spaces = false;
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index] as string;
    if (char === ' ') {
      if (allowBreaks && !spaces && writer.column > bestWidth && index !== 0 && index !== chars.length - 1 && !isSpaceChar(chars[index + 1])) {
        writer.newline(indent);
      } else {
        writer.write(char);
      }
      spaces = true;
    } else {
      writer.write(char === "'" ? "''" : char);
      spaces = false;
    }
  }
  writer.write("'");
}

const namedEscapes: Readonly<Record<number, string>> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0xa0: '_',
  0x2028: 'L',
  0x2029: 'P',
};

function writeDoubleQuoted(writer: Writer, value: string, indent: number, allowBreaks: boolean): void {
  const chars = [...value];
  writer.write('"');
  let spaces = false;
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index] as string;
    const code = char.codePointAt(0) ?? 0;
    if (!isPrintable(code) || code === 0xfeff || isBreakCode(code) || char === '"' || char === '\\') {
      const named = namedEscapes[code];
      if (named !== undefined) writer.write(`\\${named}`);
      else if (code <= 0xff) writer.write(`\\x${code.toString(16).toUpperCase().padStart(2, '0')}`);
      else if (code <= 0xffff) writer.write(`\\u${code.toString(16).toUpperCase().padStart(4, '0')}`);
      else writer.write(`\\U${code.toString(16).toUpperCase().padStart(8, '0')}`);
      spaces = false;
    } else if (char === ' ') {
      if (allowBreaks && !spaces && writer.column > bestWidth && index !== 0 && index !== chars.length - 1) {
        writer.newline(indent);
        if (isSpaceChar(chars[index + 1])) writer.write('\\');
      } else {
        writer.write(char);
      }
      spaces = true;
    } else {
      writer.write(char);
      spaces = false;
    }
  }
  writer.write('"');
}

function writeLiteral(writer: Writer, value: string, indent: number): void {
  let hints = '';
  if (value.startsWith(' ') || value.startsWith('\n')) hints += String(bestIndent);
  if (!value.endsWith('\n')) hints += '-';
  else if (value === '\n' || value.endsWith('\n\n')) hints += '+';
  writer.write(`|${hints}`);
  writer.bareBreak();
  let isAtLineStart = true;
  for (const char of value) {
    if (char === '\n') {
      writer.bareBreak();
      isAtLineStart = true;
      continue;
    }
    if (isAtLineStart) {
      writer.write(' '.repeat(indent));
      isAtLineStart = false;
    }
    writer.write(char);
  }
  // libyaml leaves the writer after the last break; the caller writes the next line's indent.
  if (!value.endsWith('\n')) writer.bareBreak();
}

/** Writes a scalar at the current position; `indent` is where folded lines continue. */
function writeScalar(writer: Writer, value: unknown, indent: number, isKey: boolean): void {
  if (value === null || value === undefined) return writer.write('null');
  if (typeof value === 'boolean') return writer.write(value ? 'true' : 'false');
  if (typeof value === 'number') return writer.write(formatNumber(value));
  const text = String(value);
  const style = chooseStyle(text, isKey);
  if (style === 'plain') return writePlain(writer, text, indent, !isKey);
  if (style === 'single') return writeSingleQuoted(writer, text, indent, !isKey);
  if (style === 'double') return writeDoubleQuoted(writer, text, indent, !isKey);
  return writeLiteral(writer, text, indent);
}

function isCollection(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null;
}

function isEmptyCollection(value: Record<string, unknown> | unknown[]): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

function writeMapping(writer: Writer, value: Record<string, unknown>, indent: number, isFirstInline: boolean): void {
  const keys = Object.keys(value).sort(compareYamlKeys);
  keys.forEach((key, index) => {
    if (index > 0 || !isFirstInline) {
      if (writer.isAtLineStart) writer.write(' '.repeat(indent));
      else writer.newline(indent);
    }
    writeScalar(writer, key, indent + bestIndent, true);
    writer.write(':');
    writeValue(writer, value[key], indent, true);
  });
}

function writeSequence(writer: Writer, value: unknown[], indent: number, isFirstInline: boolean): void {
  value.forEach((item, index) => {
    if (index > 0 || !isFirstInline) {
      if (writer.isAtLineStart) writer.write(' '.repeat(indent));
      else writer.newline(indent);
    }
    writer.write('-');
    if (isCollection(item) && !isEmptyCollection(item)) {
      writer.write(' ');
      if (Array.isArray(item)) writeSequence(writer, item, indent + bestIndent, true);
      else writeMapping(writer, item, indent + bestIndent, true);
    } else {
      writeValue(writer, item, indent, false);
    }
  });
}

/** Writes the value after `key:` (in a mapping) or `-` (in a sequence). */
function writeValue(writer: Writer, value: unknown, indent: number, isInMapping: boolean): void {
  if (isCollection(value)) {
    if (isEmptyCollection(value)) return writer.write(Array.isArray(value) ? ' []' : ' {}');
    if (Array.isArray(value)) {
      // go-yaml writes a sequence inside a mapping without extra indentation.
      return writeSequence(writer, value, isInMapping ? indent : indent + bestIndent, false);
    }
    return writeMapping(writer, value, indent + bestIndent, false);
  }
  writer.write(' ');
  writeScalar(writer, value, indent + bestIndent, false);
}

/** One YAML document (without `---`) for a JSON value, as upstream writes it. Ends with a newline. */
export function emitGoYaml(value: unknown): string {
  const writer = new Writer();
  if (isCollection(value) && !isEmptyCollection(value)) {
    if (Array.isArray(value)) writeSequence(writer, value, 0, true);
    else writeMapping(writer, value, 0, true);
  } else if (isCollection(value)) {
    writer.write(Array.isArray(value) ? '[]' : '{}');
  } else {
    writeScalar(writer, value, 0, false);
  }
  const text = writer.text;
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * Writes a JSON value as YAML byte for byte like upstream's writer (sigs.k8s.io/yaml JSONToYAML →
 * go-yaml v2 → libyaml's emitter): go-yaml's key order, block style with indentless sequences,
 * `{}`/`[]` for empty collections, go-yaml's scalar style choice (double quotes for strings that
 * would read back as another type, literal blocks for multi-line text, plain when allowed, else
 * single quotes) and libyaml's line folding at column 80. Our own implementation of that behaviour.
 */

const bestWidth = 80;
const bestIndent = 2;

// YAML 1.1 resolution as go-yaml v2 does it (what a plain scalar would read back as).
const yamlInt = /^[-+]?(0b[01_]+|0[0-7_]+|(0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(:[0-5]?[0-9])+)$/;
const yamlFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const yamlSpecial = /^(~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)|<<)$/;
const yamlTimestamp = /^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(([Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](\.[0-9]*)?(([ \t]*)(Z|[-+][0-9][0-9]?(:[0-9][0-9])?))?)?$/;
const base60Float = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

function readsAsNonString(text: string): boolean {
  return text === '' || yamlSpecial.test(text) || yamlInt.test(text) || yamlFloat.test(text) || yamlTimestamp.test(text) || base60Float.test(text);
}

function isLetter(char: string): boolean {
  return /\p{L}/u.test(char);
}

function isDigit(char: string): boolean {
  return /\p{Nd}/u.test(char);
}

/** go-yaml v2's map key order: non-letters before letters, digit runs compared as numbers. */
export function compareYamlKeys(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let index = 0; index < left.length && index < right.length; index += 1) {
    const charA = left[index] as string;
    const charB = right[index] as string;
    if (charA === charB) continue;
    const isLetterA = isLetter(charA);
    const isLetterB = isLetter(charB);
    if (isLetterA && isLetterB) return (charA.codePointAt(0) ?? 0) - (charB.codePointAt(0) ?? 0);
    if (isLetterA || isLetterB) return isLetterB ? -1 : 1;
    let numberA = 0n;
    let numberB = 0n;
    if (charA === '0' || charB === '0') {
      for (let back = index - 1; back >= 0 && isDigit(left[back] as string); back -= 1) {
        if (left[back] !== '0') {
          numberA = 1n;
          numberB = 1n;
          break;
        }
      }
    }
    let endA = index;
    for (; endA < left.length && isDigit(left[endA] as string); endA += 1) numberA = numberA * 10n + BigInt((left[endA]?.codePointAt(0) ?? 48) - 48);
    let endB = index;
    for (; endB < right.length && isDigit(right[endB] as string); endB += 1) numberB = numberB * 10n + BigInt((right[endB]?.codePointAt(0) ?? 48) - 48);
    if (numberA !== numberB) return numberA < numberB ? -1 : 1;
    if (endA !== endB) return endA - endB;
    return (charA.codePointAt(0) ?? 0) - (charB.codePointAt(0) ?? 0);
  }
  return left.length - right.length;
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), as go-yaml writes floats. */
function formatGoFloat(value: number): string {
  if (value === Infinity) return '.inf';
  if (value === -Infinity) return '-.inf';
  if (Number.isNaN(value)) return '.nan';
  const [mantissa = '0', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(value);
}

function formatNumber(value: number): string {
  // go-yaml reads integral JSON numbers as ints (when they fit int64) and the rest as float64.
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 63 && !(Math.abs(value) >= 1e21)) return BigInt(value).toString();
  return formatGoFloat(value);
}

function isPrintable(code: number): boolean {
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    code === 0x85 ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

const isBreakCode = (code: number): boolean => code === 0x0a || code === 0x0d || code === 0x85 || code === 0x2028 || code === 0x2029;
const isSpaceChar = (char: string | undefined): boolean => char === ' ';

interface ScalarAnalysis {
  readonly isMultiline: boolean;
  readonly isBlockPlainAllowed: boolean;
  readonly isFlowPlainAllowed: boolean;
  readonly isSingleQuotedAllowed: boolean;
  readonly isBlockAllowed: boolean;
}

const allAllowed: ScalarAnalysis = { isMultiline: false, isBlockPlainAllowed: true, isFlowPlainAllowed: true, isSingleQuotedAllowed: true, isBlockAllowed: true };
/** Text no rule below can object to (most names, versions, images, base64, prose without colons). */
const simpleText = /^[A-Za-z0-9](?:[A-Za-z0-9 ._/+=()-]*[A-Za-z0-9._/+=()-])?$/;
const firstIndicators = new Set([...'#,[]{}&*!|>\'"%@`'].map((char) => char.charCodeAt(0)));
const flowIndicatorCodes = new Set([...',?[]{}'].map((char) => char.charCodeAt(0)));

function isBlankOrEndAt(value: string, index: number): boolean {
  if (index >= value.length) return true;
  const code = value.charCodeAt(index);
  return code === 0x20 || code === 0x09 || isBreakCode(code);
}

/** libyaml's yaml_emitter_analyze_scalar (over UTF-16 units; surrogate pairs count as printable). */
function analyzeScalar(value: string): ScalarAnalysis {
  if (value === '') return { isMultiline: false, isBlockPlainAllowed: false, isFlowPlainAllowed: false, isSingleQuotedAllowed: true, isBlockAllowed: false };
  if (simpleText.test(value)) return allAllowed;
  let blockIndicators = false;
  let flowIndicators = false;
  if (value.startsWith('---') || value.startsWith('...')) {
    blockIndicators = true;
    flowIndicators = true;
  }
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  let followedByWhitespace = isBlankOrEndAt(value, 1);
  const last = value.length - 1;
  for (let index = 0; index <= last; index += 1) {
    const code = value.charCodeAt(index);
    if (index === 0) {
      if (firstIndicators.has(code)) {
        flowIndicators = true;
        blockIndicators = true;
      }
      if (code === 0x3f || code === 0x3a) {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      }
      if (code === 0x2d && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    } else {
      if (flowIndicatorCodes.has(code)) flowIndicators = true;
      if (code === 0x3a) {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      }
      if (code === 0x23 && precededByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    }
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) specialCharacters = true;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      const previous = value.charCodeAt(index - 1);
      if (!(previous >= 0xd800 && previous <= 0xdbff)) specialCharacters = true;
    } else if (!isPrintable(code) || code === 0xfeff) {
      specialCharacters = true;
    }
    const isBreak = isBreakCode(code);
    if (isBreak) lineBreaks = true;
    if (code === 0x20) {
      if (index === 0) leadingSpace = true;
      if (index === last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak) {
      if (index === 0) leadingBreak = true;
      if (index === last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousBreak = true;
      previousSpace = false;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = code === 0x20 || code === 0x09 || isBreak;
    followedByWhitespace = isBlankOrEndAt(value, index + 2);
  }
  let isFlowPlainAllowed = true;
  let isBlockPlainAllowed = true;
  let isSingleQuotedAllowed = true;
  let isBlockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    isFlowPlainAllowed = false;
    isBlockPlainAllowed = false;
  }
  if (trailingSpace) isBlockAllowed = false;
  if (breakSpace) {
    isFlowPlainAllowed = false;
    isBlockPlainAllowed = false;
    isSingleQuotedAllowed = false;
  }
  if (spaceBreak || specialCharacters) {
    isFlowPlainAllowed = false;
    isBlockPlainAllowed = false;
    isSingleQuotedAllowed = false;
    isBlockAllowed = false;
  }
  if (lineBreaks) {
    isFlowPlainAllowed = false;
    isBlockPlainAllowed = false;
  }
  if (flowIndicators) isFlowPlainAllowed = false;
  if (blockIndicators) isBlockPlainAllowed = false;
  return { isMultiline: lineBreaks, isBlockPlainAllowed, isFlowPlainAllowed, isSingleQuotedAllowed, isBlockAllowed };
}

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

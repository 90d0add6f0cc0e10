/**
 * What go-yaml v2 and libyaml decide about one scalar or key before writing it: whether a plain
 * scalar would read back as another type (YAML 1.1), which styles the text allows, go-yaml's key
 * order and number form. The emitter (`yaml-emitter.ts`) writes with these answers.
 */
export const bestWidth = 80;
export const bestIndent = 2;

// YAML 1.1 resolution as go-yaml v2 does it (what a plain scalar would read back as).
const yamlInt = /^[-+]?(0b[01_]+|0[0-7_]+|(0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(:[0-5]?[0-9])+)$/;
const yamlFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const yamlSpecial = /^(~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)|<<)$/;
const yamlTimestamp = /^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(([Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](\.[0-9]*)?(([ \t]*)(Z|[-+][0-9][0-9]?(:[0-9][0-9])?))?)?$/;
const base60Float = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

export function readsAsNonString(text: string): boolean {
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

export function formatNumber(value: number): string {
  // go-yaml reads integral JSON numbers as ints (when they fit int64) and the rest as float64.
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 63 && !(Math.abs(value) >= 1e21)) return BigInt(value).toString();
  return formatGoFloat(value);
}

export function isPrintable(code: number): boolean {
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    code === 0x85 ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

export const isBreakCode = (code: number): boolean => code === 0x0a || code === 0x0d || code === 0x85 || code === 0x2028 || code === 0x2029;
export const isSpaceChar = (char: string | undefined): boolean => char === ' ';

export interface ScalarAnalysis {
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
export function analyzeScalar(value: string): ScalarAnalysis {
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



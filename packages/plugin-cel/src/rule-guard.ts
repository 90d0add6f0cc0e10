import { limitExceeded } from './errors.js';
import type { CelLimits } from './limits.js';

/**
 * Checks the rule text before the parser sees it: its size, and runs of unary operators, which
 * the library's parser recurses on without counting depth (10,000 `!` overflow the stack).
 */
export function guardRuleText(rule: string, limits: CelLimits): void {
  const bytes = Buffer.byteLength(rule, 'utf8');
  if (bytes > limits.maxRuleBytes) {
    throw limitExceeded('maxRuleBytes', `cel rule is ${bytes} bytes, more than the maximum of ${limits.maxRuleBytes}`, rule);
  }
  const unaryChain = longestUnaryChain(rule);
  if (unaryChain > limits.maxUnaryChain) {
    throw limitExceeded(
      'maxUnaryChain',
      `cel rule chains ${unaryChain} unary operators (! or -), more than the maximum of ${limits.maxUnaryChain}`,
      rule,
    );
  }
}

/** The longest run of `!`/`-` tokens separated only by whitespace or `(`, outside strings and comments. */
export function longestUnaryChain(rule: string): number {
  let longest = 0;
  let run = 0;
  let index = 0;
  while (index < rule.length) {
    const char = rule[index] ?? '';
    if (char === '/' && rule[index + 1] === '/') {
      const end = rule.indexOf('\n', index);
      index = end === -1 ? rule.length : end + 1;
      continue;
    }
    if (char === '"' || char === "'") {
      index = skipStringLiteral(rule, index, isRawPrefix(rule, index));
      run = 0;
      continue;
    }
    if ((char === '!' && rule[index + 1] !== '=') || char === '-') {
      run += 1;
      if (run > longest) longest = run;
    } else if (!(char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '(')) {
      run = 0;
    }
    index += 1;
  }
  return longest;
}

/** True when the quote at `index` opens a raw string (`r"…"`, `rb'…'`, `BR"…"`): backslashes do not escape there. */
function isRawPrefix(rule: string, index: number): boolean {
  const first = rule[index - 1]?.toLowerCase();
  const second = rule[index - 2]?.toLowerCase();
  const before = rule[index - 3];
  const isIdentifierChar = (char: string | undefined): boolean => char !== undefined && /[A-Za-z0-9_]/.test(char);
  if (first === 'r') return !isIdentifierChar(second === 'b' ? before : rule[index - 2]);
  if (first === 'b' && second === 'r') return !isIdentifierChar(before);
  return false;
}

/** Returns the index just past the string literal that starts at `start` (or the end of the rule). */
function skipStringLiteral(rule: string, start: number, isRaw: boolean): number {
  const quote = rule[start] ?? '"';
  const triple = quote.repeat(3);
  const isTriple = rule.startsWith(triple, start);
  let index = start + (isTriple ? 3 : 1);
  while (index < rule.length) {
    const char = rule[index];
    if (char === '\\' && !isRaw) {
      index += 2;
      continue;
    }
    if (isTriple ? rule.startsWith(triple, index) : char === quote) return index + (isTriple ? 3 : 1);
    index += 1;
  }
  return rule.length;
}

/**
 * Finds constructs in a regular expression that make JavaScript's backtracking engine slow or
 * that RE2 (upstream's engine) rejects anyway: backreferences, lookaround, and a repeated group
 * whose content repeats too or offers alternatives (`(a+)+`, `(a{1,3})*`, `(a+){2,5}`,
 * `(a|aa)*`). Returns a phrase describing the first one, or undefined.
 */
export function findUnsafeRegexConstruct(pattern: string): string | undefined {
  return scanRegex(pattern).unsafe;
}

/**
 * How many unbounded quantifiers (`*`, `+`, `{n,}`) a pattern has: the degree of the polynomial
 * backtracking a sequence of overlapping ones (`a*a*a*b`) can cause.
 */
export function countUnboundedQuantifiers(pattern: string): number {
  return scanRegex(pattern).unboundedQuantifiers;
}

function scanRegex(pattern: string): { unsafe?: string; unboundedQuantifiers: number } {
  let unboundedQuantifiers = 0;
  const unsafe = (phrase: string) => ({ unsafe: phrase, unboundedQuantifiers });
  interface Group {
    /** Contains a quantifier allowing more than one repetition (at any depth). */
    hasRepeating: boolean;
    /** Contains an unbounded quantifier (at any depth). */
    hasUnbounded: boolean;
    hasAlternation: boolean;
  }
  const newGroup = (): Group => ({ hasRepeating: false, hasUnbounded: false, hasAlternation: false });
  const stack: Group[] = [newGroup()];
  /** The group that closed just before the current position, if the previous atom was a group. */
  let closedGroup: Group | undefined;
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index] ?? '';
    const current = stack[stack.length - 1] ?? newGroup();
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return unsafe('uses a backreference');
      closedGroup = undefined;
      index += 2;
      continue;
    }
    if (char === '[') {
      index = skipCharacterClass(pattern, index);
      closedGroup = undefined;
      continue;
    }
    if (char === '(') {
      if (/^\(\?<?[=!]/.test(pattern.slice(index, index + 4))) return unsafe('uses lookaround');
      stack.push(newGroup());
      closedGroup = undefined;
      index += 1;
      continue;
    }
    if (char === ')') {
      const closed = stack.length > 1 ? stack.pop() : undefined;
      const parent = stack[stack.length - 1];
      if (closed !== undefined && parent !== undefined) {
        parent.hasRepeating ||= closed.hasRepeating;
        parent.hasUnbounded ||= closed.hasUnbounded;
      }
      closedGroup = closed;
      index += 1;
      continue;
    }
    if (char === '|') {
      current.hasAlternation = true;
      closedGroup = undefined;
      index += 1;
      continue;
    }
    const quantifier = readQuantifier(pattern, index);
    if (quantifier !== undefined && quantifier.isRepeating) {
      if (closedGroup !== undefined) {
        // Ambiguous ways to split the input between inner and outer repetition: exponential backtracking.
        if (closedGroup.hasUnbounded || (quantifier.isUnbounded && closedGroup.hasRepeating)) {
          return unsafe('repeats a group that repeats itself');
        }
        if (quantifier.isUnbounded && closedGroup.hasAlternation) return unsafe('repeats a group with alternatives');
      }
      current.hasRepeating = true;
      if (quantifier.isUnbounded) {
        current.hasUnbounded = true;
        unboundedQuantifiers += 1;
      }
      closedGroup = undefined;
      index += quantifier.length;
      continue;
    }
    // `?` (optional, or a lazy suffix) keeps the group as the previous atom; anything else is a new atom.
    if (char !== '?') closedGroup = undefined;
    index += 1;
  }
  return { unboundedQuantifiers };
}

interface Quantifier {
  readonly length: number;
  /** Allows more than one repetition (`*`, `+`, `{2}`, `{1,3}`, `{2,}`). */
  readonly isRepeating: boolean;
  /** Has no upper bound (`*`, `+`, `{n,}`). */
  readonly isUnbounded: boolean;
}

/** The quantifier at `index`, if any (`?` is not repeating and is left to the caller). */
function readQuantifier(pattern: string, index: number): Quantifier | undefined {
  const char = pattern[index];
  if (char === '*' || char === '+') return { length: 1, isRepeating: true, isUnbounded: true };
  if (char !== '{') return undefined;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
  if (match === null) return undefined;
  const min = Number(match[1]);
  const hasComma = match[2] !== undefined;
  const max = !hasComma ? min : match[3] === '' || match[3] === undefined ? Infinity : Number(match[3]);
  return { length: match[0].length, isRepeating: max > 1, isUnbounded: max === Infinity };
}

function skipCharacterClass(pattern: string, start: number): number {
  let index = start + 1;
  if (pattern[index] === '^') index += 1;
  if (pattern[index] === ']') index += 1;
  while (index < pattern.length && pattern[index] !== ']') index += pattern[index] === '\\' ? 2 : 1;
  return index + 1;
}

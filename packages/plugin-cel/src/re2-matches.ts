import { compileRe2Pattern } from '@olm/untrusted-input';

/**
 * CEL `string.matches(pattern)` as cel-go runs it: RE2 syntax, an unanchored search, linear time
 * (cel-js would use JavaScript's backtracking RegExp). A pattern RE2 refuses (lookaround,
 * backreferences) throws with Go's message, which makes the rule false for the bundle, as an
 * invalid pattern does upstream.
 */
export function matchesRe2(subject: unknown, pattern: unknown): boolean {
  if (typeof subject !== 'string' || typeof pattern !== 'string') {
    throw new Error(`found no matching overload for 'matches' applied to '(${typeName(subject)}, ${typeName(pattern)})'`);
  }
  return compileRe2Pattern(pattern).test(subject);
}

function typeName(value: unknown): string {
  if (value === null) return 'null_type';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  return typeof value;
}

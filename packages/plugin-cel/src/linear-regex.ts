import { setFlagsFromString } from 'node:v8';

let linearEngine: boolean | undefined;

/**
 * Makes V8's linear-time regular-expression engine (the `l` flag) available, as upstream's RE2 is
 * linear: a hostile `matches()` pattern cannot backtrack exponentially. The flag only adds the `l`
 * RegExp flag; it changes no existing expression. Returns false when this Node cannot provide it.
 */
export function enableLinearRegexEngine(): boolean {
  if (linearEngine !== undefined) return linearEngine;
  if (!supportsLinearFlag()) {
    try {
      setFlagsFromString('--enable-experimental-regexp-engine');
    } catch {
      // Flags are best effort; the check below decides.
    }
  }
  linearEngine = supportsLinearFlag();
  return linearEngine;
}

function supportsLinearFlag(): boolean {
  try {
    new RegExp('a', 'l');
    return true;
  } catch {
    return false;
  }
}

/** Compiled patterns by source; a rule tests the same pattern against every candidate. */
const compiledPatterns = new Map<string, RegExp | Error>();
const COMPILED_PATTERNS_MAX = 256;

/**
 * CEL `string.matches(pattern)` on the linear engine: an unanchored search, like RE2's. A pattern
 * the linear engine cannot run (backreferences, lookaround: RE2 rejects them too) or that is
 * invalid throws, which makes the rule false for the bundle, as an invalid pattern does upstream.
 */
export function matchesLinear(subject: unknown, pattern: unknown): boolean {
  if (typeof subject !== 'string' || typeof pattern !== 'string') {
    throw new Error(`found no matching overload for 'matches' applied to '(${typeName(subject)}, ${typeName(pattern)})'`);
  }
  let compiled = compiledPatterns.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = new RegExp(pattern, 'l');
    } catch (error) {
      compiled = new Error(`invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
    }
    if (compiledPatterns.size >= COMPILED_PATTERNS_MAX) compiledPatterns.clear();
    compiledPatterns.set(pattern, compiled);
  }
  if (compiled instanceof Error) throw compiled;
  return compiled.test(subject);
}

function typeName(value: unknown): string {
  if (value === null) return 'null_type';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  return typeof value;
}

import { RE2JS } from 're2js';

/** Stable code of an invalid pattern (recognise it by `code`, e.g. with `hasErrorCode` from `@olm/core`). */
export const PATTERN_INVALID = 'OLM_PATTERN_INVALID';

/**
 * A pattern Go's `regexp` package refuses. The message is Go's (`error parsing regexp: invalid or
 * unsupported Perl syntax: `(?=``), which is what Kubernetes and cel-go report.
 */
export class PatternSyntaxError extends SyntaxError {
  readonly code = PATTERN_INVALID;
  readonly pattern: string;

  constructor(pattern: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PatternSyntaxError';
    this.pattern = pattern;
  }
}

/** A compiled RE2 pattern. Matching takes time linear in the subject (times the pattern's size). */
export interface Re2Pattern {
  readonly source: string;
  /** Whether the pattern matches somewhere in `subject` (unanchored, like Go's `MatchString`). */
  test(subject: string): boolean;
}

/** Compiled patterns (and refusals) by source: a schema or rule uses one pattern for many values. */
const compiled = new Map<string, Re2Pattern | PatternSyntaxError>();
const COMPILED_MAX = 512;

/**
 * Compiles a pattern from an untrusted source (a CRD `pattern`, a CEL `matches()` argument) with
 * Go's RE2 syntax and semantics, as Kubernetes and cel-go do: `(?i)`, `\pL`, `[[:alpha:]]`, `\z`
 * work; backreferences and lookaround, which RE2 cannot run in linear time, throw a
 * {@link PatternSyntaxError}, as do repeat counts over 1000 and expressions too large to compile.
 */
export function compileRe2Pattern(pattern: string): Re2Pattern {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    entry = compileUncached(pattern);
    // Oldest first: Map keeps insertion order.
    if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value as string);
    compiled.set(pattern, entry);
  }
  if (entry instanceof PatternSyntaxError) throw entry;
  return entry;
}

function compileUncached(pattern: string): Re2Pattern | PatternSyntaxError {
  let regexp: RE2JS;
  try {
    regexp = RE2JS.compile(pattern);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return new PatternSyntaxError(pattern, message.startsWith('error parsing regexp') ? message : `error parsing regexp: ${message}`, { cause: error });
  }
  return { source: pattern, test: (subject) => regexp.test(subject) };
}

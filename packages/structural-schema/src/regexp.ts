/**
 * Kubernetes checks `pattern` with Go's RE2; JavaScript's RegExp differs in a few spellings that real
 * CRDs use. This turns an RE2 pattern into an equivalent JavaScript RegExp where it can: leading inline
 * flags (`(?i)`, `(?s)`, `(?m)`, combined) become RegExp flags, `\A` and `\z` become `^` and `$`, and a
 * pattern that unicode mode rejects (e.g. escaped punctuation such as `\:`, allowed by RE2) is compiled
 * without the `u` flag. Throws a SyntaxError when neither works.
 */
export function toJsRegExp(pattern: string): RegExp {
  let source = pattern;
  let flags = '';
  const inline = /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    flags = [...new Set(inline[1])].join('');
    source = source.slice(inline[0].length);
  }
  source = source.replace(/(?<!\\)((?:\\\\)*)\\A/g, '$1^').replace(/(?<!\\)((?:\\\\)*)\\z/g, '$1$');
  try {
    return new RegExp(source, `${flags}u`);
  } catch (unicodeError) {
    try {
      return new RegExp(source, flags);
    } catch {
      throw unicodeError;
    }
  }
}

/** ajv's pluggable regular-expression engine, backed by {@link toJsRegExp}. */
export const kubernetesRegExpEngine = Object.assign((pattern: string) => toJsRegExp(pattern), { code: 'toJsRegExp' });

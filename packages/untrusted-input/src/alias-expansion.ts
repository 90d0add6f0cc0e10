/**
 * YAML aliases (`*name`) make a parsed document a graph: an alias is the same object (or string) as
 * its anchor. Parsing stays cheap, but anything that walks or serialises the value (validation,
 * rendering, JSON for a gRPC answer or for storage) expands every alias, so nested aliases ("billion
 * laughs") grow a few hundred bytes into gigabytes. These limits bound that expansion at load.
 */
export interface AliasExpansionLimits {
  /** Most reuses of an already seen mapping or sequence (alias references) in one document. */
  readonly maxAliases: number;
  /** Most bytes the document takes as JSON with every alias written out. */
  readonly maxExpandedBytes: number;
}

/**
 * No real catalog or manifest comes near these: the certified-operators catalog has no aliases at
 * all, and its largest document is a few megabytes of JSON.
 */
export const defaultAliasExpansionLimits: AliasExpansionLimits = Object.freeze({
  maxAliases: 10_000,
  maxExpandedBytes: 64 * 1024 * 1024,
});

/**
 * Why `document` (a value a YAML parser returned) expands too much, or undefined when it is within
 * `limits`. The reason starts as go-yaml's (`document contains excessive aliasing`) and names the
 * limit. A value that contains itself (a recursive alias) is refused too: it has no JSON form.
 * Time and memory are linear in the document's distinct nodes; it never expands anything.
 */
export function findExcessiveAliasing(document: unknown, limits: AliasExpansionLimits = defaultAliasExpansionLimits): string | undefined {
  return measureAliasExpansion(document, limits).problem;
}

/** What {@link measureAliasExpansion} found: the expanded JSON size, or why the document is refused. */
export interface AliasExpansion {
  /** Bytes of JSON the document takes with every alias written out (up to where a limit stopped the walk). */
  readonly expandedBytes: number;
  /** Why the document is refused (as {@link findExcessiveAliasing}), when it is. */
  readonly problem?: string;
}

/**
 * Measures `document` as {@link findExcessiveAliasing} does and also returns its expanded size, so a
 * loader can bound many documents together (a file, a catalog), not only each one.
 */
export function measureAliasExpansion(document: unknown, limits: AliasExpansionLimits = defaultAliasExpansionLimits): AliasExpansion {
  if (typeof document !== 'object' || document === null) return { expandedBytes: scalarSize(document) };
  /** Expanded JSON size of each finished mapping or sequence; a second visit is an alias. */
  const sizes = new Map<object, number>();
  /** Containers on the current path: meeting one again is a cycle. */
  const onPath = new Set<object>();
  let aliases = 0;

  interface Frame {
    readonly node: object;
    readonly children: readonly unknown[];
    next: number;
    size: number;
  }
  const open = (node: object): Frame => {
    onPath.add(node);
    if (Array.isArray(node)) return { node, children: node, next: 0, size: 2 + node.length };
    const record = node as Record<string, unknown>;
    let size = 2;
    const keys = Object.keys(record);
    // "key": value, per entry.
    for (const key of keys) size += key.length + 4;
    return { node, children: keys.map((key) => record[key]), next: 0, size };
  };

  const stack: Frame[] = [open(document)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.size > limits.maxExpandedBytes) return { expandedBytes: frame.size, problem: tooLarge(limits) };
    if (frame.next === frame.children.length) {
      stack.pop();
      onPath.delete(frame.node);
      sizes.set(frame.node, frame.size);
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.size += frame.size;
      continue;
    }
    const child = frame.children[frame.next++];
    if (typeof child !== 'object' || child === null) {
      frame.size += scalarSize(child);
      continue;
    }
    const known = sizes.get(child);
    if (known !== undefined) {
      aliases += 1;
      if (aliases > limits.maxAliases) {
        return {
          expandedBytes: frame.size,
          problem: `document contains excessive aliasing: more than ${limits.maxAliases} aliases (limit maxAliases); write the values out instead of using YAML anchors and aliases`,
        };
      }
      frame.size += known;
      continue;
    }
    if (onPath.has(child)) {
      return { expandedBytes: frame.size, problem: 'document contains a recursive alias (a node that contains itself), which has no JSON form; remove the alias' };
    }
    stack.push(open(child));
  }
  return { expandedBytes: sizes.get(document) ?? 0 };
}

function tooLarge(limits: AliasExpansionLimits): string {
  return `document contains excessive aliasing: with its aliases expanded it takes more than ${limits.maxExpandedBytes} bytes (limit maxExpandedBytes); write the values out instead of using YAML anchors and aliases`;
}

function scalarSize(value: unknown): number {
  // A string alias is the same string again: it counts each time it is written out.
  if (typeof value === 'string') return value.length + 2;
  return 8;
}

/**
 * Where YAML text may define its first anchor (the offset of an `&name` after a separator), or -1,
 * so that a loader can skip {@link findExcessiveAliasing} for the many documents without one and
 * point at the first anchor when it refuses one. False positives (an `&` in text) only cost the walk;
 * an anchor always follows one of these separators in YAML, so -1 means there is none.
 */
export function indexOfYamlAnchor(text: string): number {
  // indexOf skips to each `&` far faster than a regular expression scans a large document.
  for (let index = text.indexOf('&'); index >= 0; index = text.indexOf('&', index + 1)) {
    const before = index === 0 ? '' : text[index - 1];
    const after = text[index + 1];
    if ((before === '' || anchorPrefixes.has(before as string)) && after !== undefined && !anchorNameStops.has(after)) return index;
  }
  return -1;
}

/** What may precede an anchor: whitespace, flow indicators, `:` of a flow pair, a byte order mark. */
const anchorPrefixes = new Set([' ', '\t', '\n', '\r', '[', '{', ',', ':', '\uFEFF']);
/** What cannot start an anchor name. */
const anchorNameStops = new Set([' ', '\t', '\n', '\r', ',', '[', ']', '{', '}']);

import { indexOfYamlAnchor, measureAliasExpansion } from '@olm/untrusted-input';
import type { CatalogBudget } from './catalog-limits.js';
import jsYaml from 'js-yaml';
import { findJsonSyntaxError } from './json-syntax.js';

/**
 * Splits one catalog file into its top-level values, as upstream's YAML-or-JSON decoder does:
 * when the first non-whitespace byte is `{` the file is a JSON stream (any number of
 * concatenated values), otherwise multi-document YAML. Values are returned in file order with
 * the line (1-based) where each starts. Parsing stops at the first error, which carries a line
 * where one is known; values before it are kept (upstream fails the whole file either way).
 */
export interface ParsedValue {
  readonly value: unknown;
  /** 1-based line where the value starts. */
  readonly line: number;
  /** 0-based index of the value (document) within the file. */
  readonly index: number;
}

export interface FileParseError {
  readonly message: string;
  readonly line?: number;
  readonly hint: string;
}

export interface ParsedFile {
  readonly format: 'json' | 'yaml' | 'empty';
  readonly values: readonly ParsedValue[];
  readonly error?: FileParseError;
}

/**
 * Nesting limit for JSON. Go's decoder stops at 10,000 levels; we stop at 1,000 (as for YAML),
 * far beyond any real catalog, so that every later step (rendering included) stays within the stack.
 */
export const maxNestingDepth = 1000;

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Offset of the first byte that is not valid UTF-8, or -1. */
function findInvalidUtf8(bytes: Uint8Array): number {
  let index = 0;
  const length = bytes.length;
  while (index < length) {
    const byte = bytes[index] ?? 0;
    if (byte < 0x80) {
      index += 1;
      continue;
    }
    let needed: number;
    let minimum: number;
    let codePoint: number;
    if (byte >= 0xc2 && byte <= 0xdf) {
      needed = 1;
      minimum = 0x80;
      codePoint = byte & 0x1f;
    } else if (byte >= 0xe0 && byte <= 0xef) {
      needed = 2;
      minimum = 0x800;
      codePoint = byte & 0x0f;
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      needed = 3;
      minimum = 0x10000;
      codePoint = byte & 0x07;
    } else {
      return index;
    }
    for (let offset = 1; offset <= needed; offset += 1) {
      const next = bytes[index + offset];
      if (next === undefined || (next & 0xc0) !== 0x80) return index;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (codePoint < minimum || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return index;
    index += needed + 1;
  }
  return -1;
}

function lineAtByte(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset; index += 1) if (bytes[index] === 0x0a) line += 1;
  return line;
}

/**
 * Charges a parsed document to the load's budget: a parse error once a limit is crossed, so parsing
 * stops at the document that crossed it.
 */
function chargeDocument(budget: CatalogBudget | undefined, decodedBytes: number, line: number, index: number): FileParseError | undefined {
  const refused = budget?.charge(decodedBytes, `document ${index + 1} (line ${line})`);
  return refused === undefined ? undefined : { message: refused.message, line, hint: refused.hint };
}

/** Parses the bytes of one file, charging each document to `budget`. Never throws for bad input. */
export function parseCatalogFile(bytes: Uint8Array, budget?: CatalogBudget): ParsedFile {
  let start = 0;
  // A UTF-8 byte order mark is not content.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  let first = start;
  while (first < bytes.length && isWhitespace(bytes[first] ?? 0)) first += 1;
  if (first === bytes.length) return { format: 'empty', values: [] };
  const body = bytes.subarray(start);
  if (bytes[first] === 0x7b /* { */) {
    // Go's JSON decoder replaces invalid UTF-8 in strings with U+FFFD; Buffer does the same.
    return parseJsonStream(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'), budget);
  }
  const invalid = findInvalidUtf8(body);
  if (invalid >= 0) {
    return {
      format: 'yaml',
      values: [],
      error: {
        message: `yaml: invalid UTF-8 byte 0x${(body[invalid] ?? 0).toString(16).padStart(2, '0')} at offset ${invalid + start}`,
        line: lineAtByte(body, invalid),
        hint: 'catalog files must be UTF-8 text; remove binary files from the catalog directory or list them in an .indexignore file',
      },
    };
  }
  return parseYamlStream(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'), budget);
}

/** Finds where each concatenated JSON value ends, then lets JSON.parse check it. */
export function parseJsonStream(text: string, budget?: CatalogBudget): ParsedFile {
  const values: ParsedValue[] = [];
  const length = text.length;
  let position = 0;
  let line = 1;
  const fail = (message: string, atLine: number): ParsedFile => ({
    format: 'json',
    values,
    error: { message, line: atLine, hint: 'fix the JSON syntax; a JSON catalog file is a stream of objects, one after another, without commas or an enclosing array' },
  });
  while (true) {
    while (position < length) {
      const code = text.charCodeAt(position);
      if (!isWhitespace(code)) break;
      if (code === 0x0a) line += 1;
      position += 1;
    }
    if (position >= length) break;
    const startLine = line;
    const startPosition = position;
    const first = text.charCodeAt(position);
    let depth = 0;
    let isInString = false;
    if (first === 0x7b || first === 0x5b) {
      // Scan to the matching bracket, tracking strings and nesting.
      for (; position < length; position += 1) {
        const code = text.charCodeAt(position);
        if (code === 0x0a) line += 1;
        if (isInString) {
          if (code === 0x5c /* \ */) position += 1;
          else if (code === 0x22 /* " */) isInString = false;
          continue;
        }
        if (code === 0x22) isInString = true;
        else if (code === 0x7b || code === 0x5b) {
          depth += 1;
          if (depth > maxNestingDepth) return fail(`json: exceeded max depth of ${maxNestingDepth} nested values`, line);
        } else if (code === 0x7d || code === 0x5d) {
          depth -= 1;
          if (depth === 0) {
            position += 1;
            break;
          }
        }
      }
      if (depth !== 0) return fail('unexpected EOF', line);
    } else {
      // A scalar at top level: take the token up to the next whitespace or bracket.
      while (position < length) {
        const code = text.charCodeAt(position);
        if (isWhitespace(code) || code === 0x7b || code === 0x5b) break;
        position += 1;
      }
    }
    const overBudget = chargeDocument(budget, position - startPosition, startLine, values.length);
    if (overBudget !== undefined) return { format: 'json', values, error: overBudget };
    const slice = text.slice(startPosition, position);
    let value: unknown;
    try {
      value = JSON.parse(slice);
    } catch (error) {
      const syntax = findJsonSyntaxError(slice);
      if (syntax === undefined) return fail(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`, startLine);
      return fail(syntax.message, startLine + countNewlines(slice, syntax.offset));
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail(`json: cannot unmarshal ${describeJsonKind(value)} into Go value of type map[string]interface {}`, startLine);
    }
    values.push({ value, line: startLine, index: values.length });
  }
  return { format: 'json', values };
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let index = 0; index < end && index < text.length; index += 1) if (text.charCodeAt(index) === 0x0a) count += 1;
  return count;
}

function describeJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/**
 * The YAML schema: YAML 1.2 core (as JSON-compatible as YAML gets) plus merge keys (`<<`), which
 * upstream's go-yaml supports. Timestamps stay strings, as go-yaml leaves them when decoding into `any`.
 */
const yamlSchema = jsYaml.CORE_SCHEMA.extend({ implicit: [(jsYaml as unknown as { types: { merge: jsYaml.Type } }).types.merge] });

/**
 * Parses one YAML document; `json: true` lets a repeated key override, as go-yaml does. A document
 * whose aliases expand past `@olm/untrusted-input`'s limits (a "billion laughs") is refused here, at
 * load, before validation, rendering or serving expands it: go-yaml refuses it too ("document
 * contains excessive aliasing"). The error has js-yaml's shape (`reason`, 0-based `mark.line`).
 */
export function loadYamlDocument(text: string): unknown {
  return loadMeasuredYamlDocument(text).value;
}

/**
 * {@link loadYamlDocument}, also giving the document's decoded size: with aliases written out when it
 * has anchors, else the length of its text (anchor-free YAML decodes to about its own size).
 */
export function loadMeasuredYamlDocument(text: string): { readonly value: unknown; readonly decodedBytes: number } {
  const value = jsYaml.load(text, { schema: yamlSchema, json: true, maxDepth: maxYamlDepth } as jsYaml.LoadOptions);
  // Most documents define no anchor: skip the walk for them (the real catalog has none).
  const anchor = indexOfYamlAnchor(text);
  if (anchor < 0) return { value, decodedBytes: text.length };
  const measured = measureAliasExpansion(value);
  if (measured.problem !== undefined) throw new YamlAliasingError(measured.problem, countNewlines(text, anchor));
  return { value, decodedBytes: Math.max(measured.expandedBytes, text.length) };
}

/** A YAML document refused for its aliases; `mark.line` (0-based) is where its first anchor is. */
export class YamlAliasingError extends Error {
  readonly reason: string;
  readonly mark: { readonly line: number };

  constructor(reason: string, line: number) {
    super(`${reason} (line ${line + 1})`);
    this.name = 'YamlAliasingError';
    this.reason = reason;
    this.mark = { line };
  }
}


/** The YAML parser recurses per nesting level; real catalogs nest a few dozen levels at most. */
export const maxYamlDepth = maxNestingDepth;

interface DocumentChunk {
  readonly start: number;
  readonly end: number;
  /** 1-based line of the chunk's first character. */
  readonly line: number;
}

function isDocumentMarker(text: string, offset: number): boolean {
  if (text.charCodeAt(offset) !== 0x2d || text.charCodeAt(offset + 1) !== 0x2d || text.charCodeAt(offset + 2) !== 0x2d) return false;
  const next = text.charCodeAt(offset + 3);
  return Number.isNaN(next) || next === 0x20 || next === 0x09 || next === 0x0a || next === 0x0d;
}

/**
 * Splits a YAML stream at `---` lines (a marker at column 0 is always a document boundary in YAML),
 * so each document is parsed alone and its line is known without a second pass.
 */
function splitDocuments(text: string): DocumentChunk[] {
  const chunks: DocumentChunk[] = [];
  let chunkStart = 0;
  let chunkLine = 1;
  let line = 1;
  let offset = 0;
  while (offset < text.length) {
    if (offset > 0 && isDocumentMarker(text, offset)) {
      chunks.push({ start: chunkStart, end: offset, line: chunkLine });
      chunkStart = offset;
      chunkLine = line;
    }
    const newline = text.indexOf('\n', offset);
    if (newline === -1) break;
    offset = newline + 1;
    line += 1;
  }
  chunks.push({ start: chunkStart, end: text.length, line: chunkLine });
  return chunks;
}

/** The line of a document's first content (skipping the marker, blank lines and comments). */
function contentLine(text: string, chunk: DocumentChunk): number {
  let offset = chunk.start;
  let line = chunk.line;
  while (offset < chunk.end) {
    const newline = text.indexOf('\n', offset);
    const lineEnd = newline === -1 || newline > chunk.end ? chunk.end : newline;
    let content = text.slice(offset, Math.min(lineEnd, offset + 200)).trim();
    if (isDocumentMarker(text, offset)) content = content.slice(3).trim();
    if (content !== '' && !content.startsWith('#')) return line;
    if (newline === -1) break;
    offset = newline + 1;
    line += 1;
  }
  return chunk.line;
}

function isOnlyDirectives(text: string): boolean {
  if (!text.startsWith('%') && !text.includes('\n%')) return false;
  const lines = text.split('\n').map((item) => item.trim()).filter((item) => item !== '' && !item.startsWith('#'));
  return lines.length > 0 && lines.every((item) => item.startsWith('%'));
}

export function parseYamlStream(text: string, budget?: CatalogBudget): ParsedFile {
  const values: ParsedValue[] = [];
  const hint = 'fix the YAML syntax; documents are separated by lines with `---` and each must be a mapping with a `schema` key';
  let pendingDirectives = '';
  for (const chunk of splitDocuments(text)) {
    let source = text.slice(chunk.start, chunk.end);
    if (isOnlyDirectives(source)) {
      pendingDirectives += source;
      continue;
    }
    const directiveLines = pendingDirectives === '' ? 0 : pendingDirectives.split('\n').length - 1;
    source = pendingDirectives + source;
    pendingDirectives = '';
    const line = contentLine(text, chunk);
    let value: unknown;
    try {
      const loaded = loadMeasuredYamlDocument(source);
      value = loaded.value;
      const overBudget = chargeDocument(budget, loaded.decodedBytes, line, values.length);
      if (overBudget !== undefined) return { format: 'yaml', values, error: overBudget };
    } catch (error) {
      const mark = (error as { mark?: { line?: number } }).mark;
      const errorLine = mark?.line === undefined ? line : chunk.line + mark.line - directiveLines;
      const reason = (error as { reason?: unknown }).reason;
      let message = typeof reason === 'string' ? reason : describeThrown(error);
      if (/maxDepth/.test(message)) message = `exceeded max depth of ${maxYamlDepth}`;
      const aliasHint = 'validating, rendering and serving a catalog write every alias out, so a few lines of aliases can grow to gigabytes; their expansion is bounded at load';
      return { format: 'yaml', values, error: { message: `yaml: line ${errorLine}: ${message}`, line: errorLine, hint: error instanceof YamlAliasingError ? aliasHint : hint } };
    }
    // A document with no content (only comments or `---`) holds no blob.
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      return {
        format: 'yaml',
        values,
        error: {
          message: `json: cannot unmarshal ${describeJsonKind(value)} into Go value of type map[string]interface {}`,
          line,
          hint: 'each document of a catalog file must be a mapping (an FBC blob with a `schema` key), not a list or a scalar',
        },
      };
    }
    // Only .inf/.nan need fixing (JSON has no such numbers); skip the walk when absent.
    values.push({ value: /\.(?:inf|nan)/i.test(source) ? normaliseYamlValue(value) : value, line, index: values.length });
  }
  return { format: 'yaml', values };
}

function firstLine(message: string): string {
  const newline = message.indexOf('\n');
  return newline === -1 ? message : message.slice(0, newline);
}

function describeThrown(error: unknown): string {
  // The YAML parser recurses per nesting level; a stack overflow means absurdly deep input.
  if (error instanceof RangeError) return 'exceeded max depth (the document is nested too deeply)';
  return error instanceof Error ? firstLine(error.message) : String(error);
}

/**
 * YAML values that JSON cannot hold are converted as upstream's YAML→JSON step does: binary and
 * dates become strings, non-finite numbers are rejected later by JSON rules (kept as null here).
 */
function normaliseYamlValue(value: unknown): unknown {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index += 1) {
        const item: unknown = current[index];
        const fixed = fixScalar(item);
        if (fixed !== item) current[index] = fixed;
        else if (typeof item === 'object' && item !== null) stack.push(item);
      }
    } else if (typeof current === 'object' && current !== null) {
      const record = current as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const item = record[key];
        const fixed = fixScalar(item);
        if (fixed !== item) record[key] = fixed;
        else if (typeof item === 'object' && item !== null) stack.push(item);
      }
    }
  }
  return value;
}

function fixScalar(value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([key, item]) => [String(key), item]));
  if (value instanceof Set) return [...value];
  return value;
}

import { readFile, stat } from 'node:fs/promises';
import { OlmError, describeError } from '@olm/core';
import { findExcessiveAliasing } from '@olm/untrusted-input';
import jsYaml from 'js-yaml';
import { AuthoringErrorCodes } from '../authoring-limits.js';

/** Bounds of a catalog template: its file, and how many bundle images it may name (each is pulled). */
export interface TemplateLimits {
  readonly maxTemplateBytes: number;
  readonly maxBundles: number;
}

export const defaultTemplateLimits: TemplateLimits = Object.freeze({ maxTemplateBytes: 16 * 1024 * 1024, maxBundles: 5_000 });

/** The `olm catalog template` flag that raises each limit. */
export const templateLimitFlags: Readonly<Record<keyof TemplateLimits, string>> = Object.freeze({
  maxTemplateBytes: '--max-template-bytes',
  maxBundles: '--max-bundles',
});

export function templateLimitExceeded(limit: keyof TemplateLimits, limits: TemplateLimits, where: string, found: string): OlmError {
  return new OlmError(
    AuthoringErrorCodes.input,
    `${where} ${found}, past the limit ${limit} of ${limits[limit]}; raise it with ${templateLimitFlags[limit]} (option limits.${limit}) if the template really is this large`,
    { details: { limit, value: limits[limit] } },
  );
}

/** An error in a template, naming the file and the field (`entries[3].image`). */
export function templateError(file: string, field: string, message: string): OlmError {
  return new OlmError(AuthoringErrorCodes.invalid, `${file}: ${field === '' ? '' : `${field}: `}${message}`, { details: { file, field } });
}

/** Reads a template file (YAML or JSON, one document), refused past `maxTemplateBytes` before it is read and past the alias bounds. */
export async function readTemplateDocument(file: string, limits: TemplateLimits): Promise<unknown> {
  let text: string;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size > limits.maxTemplateBytes) throw templateLimitExceeded('maxTemplateBytes', limits, `template ${file} is`, `${info.size} bytes`);
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof OlmError) throw error;
    throw new OlmError(AuthoringErrorCodes.input, `cannot read template ${file}: ${describeError(error)}; pass an existing template file`, { cause: error });
  }
  let document: unknown;
  try {
    document = jsYaml.load(text, { filename: file });
  } catch (error) {
    throw templateError(file, '', `not YAML or JSON: ${describeError(error)}`);
  }
  const aliasing = findExcessiveAliasing(document);
  if (aliasing) throw templateError(file, '', aliasing);
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw templateError(file, '', 'the template must be one mapping (with a schema field)');
  return document;
}

/**
 * The fields of a mapping by their lower-case names, as Go's JSON decoder matches struct fields
 * (case-insensitively); a field the template type does not have is refused, as upstream's strict decode does.
 */
export function templateFields(value: unknown, known: readonly string[], file: string, field: string): Map<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw templateError(file, field, `must be a mapping, found ${describeValue(value)}`);
  const fields = new Map<string, unknown>();
  for (const [key, entry] of Object.entries(value)) {
    const name = known.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
    if (name === undefined) throw templateError(file, `${field}${field === '' ? '' : '.'}${key}`, `unknown field; the fields are ${known.join(', ')}`);
    fields.set(name, entry);
  }
  return fields;
}

export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a mapping' : `${typeof value} ${JSON.stringify(value)}`;
}

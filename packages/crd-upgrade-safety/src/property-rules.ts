import { compareStrings, goList, goQuote } from '@olm/go-format';
import type { JSONSchemaProps } from '@olm/structural-schema';
import { goFloat } from './go-values.js';

/** crdify's property validations that OLM v1 enforces, by upstream's names. */
export type PropertyRuleName =
  | 'enum'
  | 'required'
  | 'type'
  | 'default'
  | 'maximum'
  | 'maxItems'
  | 'maxLength'
  | 'maxProperties'
  | 'minimum'
  | 'minItems'
  | 'minLength'
  | 'minProperties';

export interface PropertyFinding {
  readonly rule: PropertyRuleName;
  /** Upstream's error text, e.g. `maximum decreased : 10 -> 5`. */
  readonly detail: string;
}

/** The JSON text of an enum value or default, spending the check's budget (see `go-values.ts`). */
export type RawJson = (value: unknown) => string;

const numberOf = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** A bound that may only loosen: a new maximum, or a lower one, rejects objects the old schema accepted. */
function maximumFinding(oldValue: unknown, newValue: unknown, show: (value: number) => string): string | undefined {
  const older = numberOf(oldValue);
  const newer = numberOf(newValue);
  if (newer === undefined) return undefined;
  if (older === undefined) return `maximum constraint added when there was none previously : ${show(newer)}`;
  return newer < older ? `maximum decreased : ${show(older)} -> ${show(newer)}` : undefined;
}

function minimumFinding(oldValue: unknown, newValue: unknown, show: (value: number) => string): string | undefined {
  const older = numberOf(oldValue);
  const newer = numberOf(newValue);
  if (newer === undefined) return undefined;
  if (older === undefined) return `minimum constraint added when there was none previously : ${show(newer)}`;
  return newer > older ? `minimum increased : ${show(older)} -> ${show(newer)}` : undefined;
}

const sortedList = (values: Iterable<string>): string => goList([...values].sort(compareStrings));

/** Enum values may be added (OLM's `additionPolicy: Allow`), not removed, and a field may not gain an enum. */
function enumFinding(oldNode: JSONSchemaProps, newNode: JSONSchemaProps, raw: RawJson): string | undefined {
  const oldValues = new Set(Array.isArray(oldNode.enum) ? oldNode.enum.map(raw) : []);
  const newValues = new Set(Array.isArray(newNode.enum) ? newNode.enum.map(raw) : []);
  if (oldValues.size === 0 && newValues.size > 0) return `enum constraint added when there was none previously : ${sortedList(newValues)}`;
  const removed = [...oldValues].filter((value) => !newValues.has(value));
  return removed.length > 0 ? `allowed enum values removed : ${sortedList(removed)}` : undefined;
}

function requiredFinding(oldNode: JSONSchemaProps, newNode: JSONSchemaProps): string | undefined {
  const names = (node: JSONSchemaProps) => (Array.isArray(node.required) ? node.required.filter((name) => typeof name === 'string') : []);
  const before = new Set(names(oldNode));
  const added = [...new Set(names(newNode))].filter((name) => !before.has(name));
  return added.length > 0 ? `new required fields: ${goList(added)}` : undefined;
}

function typeFinding(oldNode: JSONSchemaProps, newNode: JSONSchemaProps): string | undefined {
  const before = String(oldNode.type ?? '');
  const after = String(newNode.type ?? '');
  return before === after ? undefined : `type changed : ${goQuote(before)} -> ${goQuote(after)}`;
}

function defaultFinding(oldNode: JSONSchemaProps, newNode: JSONSchemaProps, raw: RawJson): string | undefined {
  const before = oldNode.default === undefined ? undefined : raw(oldNode.default);
  const after = newNode.default === undefined ? undefined : raw(newNode.default);
  if (before === after) return undefined;
  if (before === undefined) return `default added when there was none previously : ${goQuote(after!)}`;
  if (after === undefined) return `default value removed : ${goQuote(before)}`;
  return `default value changed : ${goQuote(before)} -> ${goQuote(after)}`;
}

/** Go's `%v` of the int64 bounds. */
const integer = (value: number): string => String(value);

/**
 * The violations of one property between the old schema and the new one (`{}` when the new one
 * lacks it), in a fixed order. Descriptions and other keywords are not compared (see README).
 */
export function comparePropertyRules(oldNode: JSONSchemaProps, newNode: JSONSchemaProps, raw: RawJson): PropertyFinding[] {
  const findings: [PropertyRuleName, string | undefined][] = [
    ['enum', enumFinding(oldNode, newNode, raw)],
    ['required', requiredFinding(oldNode, newNode)],
    ['type', typeFinding(oldNode, newNode)],
    ['default', defaultFinding(oldNode, newNode, raw)],
    ['maximum', maximumFinding(oldNode.maximum, newNode.maximum, goFloat)],
    ['maxItems', maximumFinding(oldNode.maxItems, newNode.maxItems, integer)],
    ['maxLength', maximumFinding(oldNode.maxLength, newNode.maxLength, integer)],
    ['maxProperties', maximumFinding(oldNode.maxProperties, newNode.maxProperties, integer)],
    ['minimum', minimumFinding(oldNode.minimum, newNode.minimum, goFloat)],
    ['minItems', minimumFinding(oldNode.minItems, newNode.minItems, integer)],
    ['minLength', minimumFinding(oldNode.minLength, newNode.minLength, integer)],
    ['minProperties', minimumFinding(oldNode.minProperties, newNode.minProperties, integer)],
  ];
  return findings.flatMap(([rule, detail]) => (detail === undefined ? [] : [{ rule, detail }]));
}

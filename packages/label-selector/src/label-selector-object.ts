import { compareStrings } from '@olm/go-format';
import { isValidLabelKey, isValidLabelValue, LabelSelectorError, selectorOf, type LabelRequirement, type Selector } from './label-selector.js';

/** `metav1.LabelSelectorRequirement`. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | (string & {});
  values?: string[];
}

/** `metav1.LabelSelector`: `matchLabels` and `matchExpressions`, ANDed; `{}` selects everything, no selector nothing. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** A selector as callers may hold it: readonly views of `LabelSelector` are accepted too. */
export type LabelSelectorView = {
  readonly matchLabels?: Readonly<Record<string, string>> | null;
  readonly matchExpressions?: ReadonlyArray<{ readonly key: string; readonly operator: string; readonly values?: readonly string[] | null }> | null;
};

const nothing: Selector = { requirements: [], equalities: [], matches: () => false };

const operators: Readonly<Record<string, LabelRequirement['operator']>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * apimachinery's `LabelSelectorAsSelector`: `null`/`undefined` selects nothing, `{}` everything;
 * throws `LabelSelectorError` for what it rejects (an unknown operator, `In`/`NotIn` without
 * values, `Exists`/`DoesNotExist` with values, an invalid key or value, a malformed shape).
 */
export function labelSelectorAsSelector(selector: unknown): Selector {
  if (selector === null || selector === undefined) return nothing;
  if (!isRecord(selector)) throw new LabelSelectorError(`a label selector must be an object, not ${JSON.stringify(selector)}`);
  const requirements: LabelRequirement[] = [];
  const { matchLabels, matchExpressions } = selector;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isRecord(matchLabels)) throw new LabelSelectorError('matchLabels must be a map of strings');
    for (const [key, value] of Object.entries(matchLabels)) {
      if (typeof value !== 'string') throw new LabelSelectorError(`matchLabels[${JSON.stringify(key)}] must be a string`);
      requirements.push({ key: checkKey(key), operator: '=', values: [checkValue(value)] });
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) throw new LabelSelectorError('matchExpressions must be a list');
    for (const expression of matchExpressions as unknown[]) requirements.push(requirementOf(expression));
  }
  return selectorOf(requirements);
}

function requirementOf(expression: unknown): LabelRequirement {
  if (!isRecord(expression) || typeof expression['key'] !== 'string') throw new LabelSelectorError('a matchExpressions entry needs a string key');
  const { key, operator: rawOperator } = expression;
  const rawValues = expression['values'] ?? [];
  if (!Array.isArray(rawValues) || !rawValues.every((value) => typeof value === 'string')) throw new LabelSelectorError(`values of ${JSON.stringify(key)} must be a list of strings`);
  const values = (rawValues as string[]).map(checkValue);
  const operator = typeof rawOperator === 'string' && Object.hasOwn(operators, rawOperator) ? operators[rawOperator]! : undefined;
  if (operator === undefined) throw new LabelSelectorError(`${JSON.stringify(rawOperator)} is not a valid label selector operator`);
  if ((operator === 'in' || operator === 'notin') && values.length === 0) {
    throw new LabelSelectorError(`values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`);
  }
  if ((operator === 'exists' || operator === '!') && values.length > 0) {
    throw new LabelSelectorError(`values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`);
  }
  return { key: checkKey(key), operator, values };
}

function checkKey(key: string): string {
  if (!isValidLabelKey(key)) throw new LabelSelectorError(`key: Invalid value: ${JSON.stringify(key)}: not a valid label key`);
  return key;
}

function checkValue(value: string): string {
  if (!isValidLabelValue(value)) throw new LabelSelectorError(`values: Invalid value: ${JSON.stringify(value)}: not a valid label value`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `labels` match a `metav1.LabelSelector`; a missing or invalid selector matches nothing (fails closed). */
export function matchesLabelSelector(selector: LabelSelectorView | null | undefined, labels: Readonly<Record<string, string>> | null | undefined): boolean {
  try {
    return labelSelectorAsSelector(selector).matches(labels);
  } catch (error) {
    if (error instanceof LabelSelectorError) return false;
    throw error;
  }
}

/** True for a missing selector or one without any requirement. */
export function isEmptyLabelSelector(selector: LabelSelectorView | null | undefined): boolean {
  return !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);
}

/**
 * The string form of a selector (`labels.Selector.String()`): requirements sorted by key, set
 * values sorted (`app=web,!canary,tier in (a,b)`); it parses back to the same selector.
 */
export function selectorText(selector: Selector): string {
  return [...selector.requirements]
    .sort((left, right) => compareStrings(left.key, right.key))
    .map(requirementText)
    .join(',');
}

function requirementText({ key, operator, values }: LabelRequirement): string {
  switch (operator) {
    case 'exists':
      return key;
    case '!':
      return `!${key}`;
    case 'in':
    case 'notin':
      return `${key} ${operator} (${[...values].sort(compareStrings).join(',')})`;
    case 'gt':
      return `${key}>${values[0]}`;
    case 'lt':
      return `${key}<${values[0]}`;
    default:
      return `${key}${operator}${values[0]}`;
  }
}

/** `selectorText` of a `metav1.LabelSelector`, as a Scale's `status.selector`; `''` when missing or invalid. */
export function labelSelectorText(selector: unknown): string {
  try {
    return selectorText(labelSelectorAsSelector(selector));
  } catch (error) {
    if (error instanceof LabelSelectorError) return '';
    throw error;
  }
}

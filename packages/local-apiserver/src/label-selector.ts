import { badRequest } from './errors.js';

/**
 * Label selectors as in the `labelSelector` query parameter:
 * `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`, comma-separated (AND).
 */
export type LabelRequirement =
  | { readonly key: string; readonly operator: 'in' | 'notin'; readonly values: readonly string[] }
  | { readonly key: string; readonly operator: 'exists' | 'doesnotexist' }
  | { readonly key: string; readonly operator: 'gt' | 'lt'; readonly values: readonly [string] };

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function isValidLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !dnsSubdomain.test(prefix))) return false;
  return name.length > 0 && name.length <= 63 && qualifiedNamePart.test(name);
}

export function isValidLabelValue(value: string): boolean {
  return value.length <= 63 && labelValue.test(value);
}

function fail(message: string): never {
  throw badRequest(`unable to parse requirement: ${message}`);
}

/** Splits on top-level commas (commas inside `( … )` belong to a set). */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  if (depth !== 0) fail(`found unbalanced parentheses in "${text}"`);
  terms.push(current);
  return terms;
}

function checkKey(key: string): string {
  if (!isValidLabelKey(key)) {
    fail(`<nil>: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
  return key;
}

function checkValue(value: string): string {
  if (!isValidLabelValue(value)) {
    fail(`<nil>: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
  return value;
}

function parseTerm(raw: string): LabelRequirement {
  const term = raw.trim();
  if (term === '') fail('found \'\', expected: !, identifier, or \'end of string\'');
  const setMatch = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (setMatch) {
    const values = (setMatch[3] ?? '').split(',').map((value) => checkValue(value.trim()));
    return { key: checkKey(setMatch[1] ?? ''), operator: setMatch[2] === 'in' ? 'in' : 'notin', values };
  }
  const opMatch = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*([^=!<>]*)$/.exec(term);
  if (opMatch) {
    const key = checkKey(opMatch[1] ?? '');
    const value = (opMatch[3] ?? '').trim();
    const operator = opMatch[2];
    if (operator === '<' || operator === '>') {
      if (!/^-?\d+$/.test(value)) fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
      return { key, operator: operator === '>' ? 'gt' : 'lt', values: [value] };
    }
    checkValue(value);
    return { key, operator: operator === '!=' ? 'notin' : 'in', values: [value] };
  }
  if (term.startsWith('!')) {
    const key = term.slice(1).trim();
    return { key: checkKey(key), operator: 'doesnotexist' };
  }
  if (/^[^\s=!<>(),]+$/.test(term)) return { key: checkKey(term), operator: 'exists' };
  return fail(`found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
}

function matchesRequirement(requirement: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  const value = has ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case 'exists':
      return has;
    case 'doesnotexist':
      return !has;
    case 'in':
      return has && requirement.values.includes(value ?? '');
    case 'notin':
      return !has || !requirement.values.includes(value ?? '');
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value ?? '')) return false;
      const actual = Number(value);
      const bound = Number(requirement.values[0]);
      return requirement.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

export function parseLabelSelector(text: string | undefined | null): LabelSelector {
  const trimmed = (text ?? '').trim();
  const requirements = trimmed === '' ? [] : splitTerms(trimmed).map(parseTerm);
  return {
    requirements,
    matches(labels) {
      const actual = labels ?? {};
      return requirements.every((requirement) => matchesRequirement(requirement, actual));
    },
  };
}

/** A `metav1.LabelSelector` object (`matchLabels` + `matchExpressions`), as used in Deployments. */
export function matchesLabelSelectorObject(selector: unknown, labels: Readonly<Record<string, string>> | undefined): boolean {
  if (typeof selector !== 'object' || selector === null) return false;
  const actual = labels ?? {};
  const { matchLabels, matchExpressions } = selector as { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  for (const [key, value] of Object.entries(matchLabels ?? {})) if (actual[key] !== value) return false;
  for (const expression of matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(actual, expression.key);
    const values = expression.values ?? [];
    const value = actual[expression.key] ?? '';
    if (expression.operator === 'In' && !(has && values.includes(value))) return false;
    if (expression.operator === 'NotIn' && has && values.includes(value)) return false;
    if (expression.operator === 'Exists' && !has) return false;
    if (expression.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/**
 * A `metav1.LabelSelector` object in the string form of the `labelSelector` parameter, as a Scale's
 * `status.selector` carries it: requirements sorted by key (`app=web,tier in (a,b),!canary`).
 */
export function labelSelectorText(selector: unknown): string {
  if (typeof selector !== 'object' || selector === null) return '';
  const { matchLabels, matchExpressions } = selector as { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  const terms: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(matchLabels ?? {})) terms.push({ key, text: `${key}=${value}` });
  for (const { key, operator, values = [] } of matchExpressions ?? []) {
    const set = [...values].sort().join(',');
    if (operator === 'In') terms.push({ key, text: `${key} in (${set})` });
    else if (operator === 'NotIn') terms.push({ key, text: `${key} notin (${set})` });
    else if (operator === 'Exists') terms.push({ key, text: key });
    else if (operator === 'DoesNotExist') terms.push({ key, text: `!${key}` });
  }
  return terms
    .sort((left, right) => (left.key < right.key ? -1 : left.key > right.key ? 1 : 0))
    .map((term) => term.text)
    .join(',');
}

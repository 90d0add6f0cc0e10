/**
 * Label selectors in their string form (`a=b,c!=d,e in (x,y),f notin (z),g,!h,n>1`), the syntax of
 * `kubectl -l` and the API's `labelSelector` parameter, as k8s.io/apimachinery `labels.Parse` reads
 * it: requirements are ANDed, keys and values are validated, errors read as kube-apiserver's.
 * Operators keep apimachinery's names (`selection.Operator`).
 */
export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** One value for `=`, `==`, `!=`, `gt`, `lt`; the set for `in`, `notin`; none for `exists`, `!`. */
  readonly values: readonly string[];
}

/** A parsed selector (apimachinery's `labels.Selector`); the empty one matches everything. */
export interface Selector {
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Readonly<Record<string, string>> | null | undefined): boolean;
  /** `key=value` pairs every match carries (`=`, `==`): a cache can narrow its candidates by them. */
  readonly equalities: ReadonlyArray<readonly [string, string]>;
}

/** A selector that does not parse; the message is kube-apiserver's (`unable to parse requirement: …`). */
export class LabelSelectorError extends Error {
  override readonly name = 'LabelSelectorError';
}

const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const integer = /^-?\d+$/;

/** A label key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
export function isValidLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !dnsSubdomain.test(prefix))) return false;
  return name.length > 0 && name.length <= 63 && qualifiedNamePart.test(name);
}

/** A label value: empty, or at most 63 alphanumerics, `-`, `_`, `.` starting and ending alphanumeric. */
export function isValidLabelValue(value: string): boolean {
  return value.length <= 63 && labelValue.test(value);
}

function fail(message: string): never {
  throw new LabelSelectorError(`unable to parse requirement: ${message}`);
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

/** Splits on top-level commas (commas inside `( … )` belong to a set). */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += char;
  }
  if (depth !== 0) fail(`found unbalanced parentheses in "${text}"`);
  terms.push(current);
  return terms;
}

function parseTerm(raw: string): LabelRequirement {
  const term = raw.trim();
  if (term === '') fail("found '', expected: !, identifier, or 'end of string'");
  const set = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (set) {
    const values = (set[3] ?? '').split(',').map((value) => checkValue(value.trim()));
    return { key: checkKey(set[1] ?? ''), operator: set[2] === 'in' ? 'in' : 'notin', values };
  }
  const comparison = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*([^=!<>]*)$/.exec(term);
  if (comparison) {
    const key = checkKey(comparison[1] ?? '');
    const value = (comparison[3] ?? '').trim();
    const operator = comparison[2] as '==' | '=' | '!=' | '<' | '>';
    if (operator === '<' || operator === '>') {
      if (!integer.test(value)) fail("for 'Gt', 'Lt' operators, the value must be an integer");
      return { key, operator: operator === '>' ? 'gt' : 'lt', values: [value] };
    }
    return { key, operator, values: [checkValue(value)] };
  }
  if (term.startsWith('!')) return { key: checkKey(term.slice(1).trim()), operator: '!', values: [] };
  if (/^[^\s=!<>(),]+$/.test(term)) return { key: checkKey(term), operator: 'exists', values: [] };
  return fail(`found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
}

/** Whether `labels` satisfy one requirement (apimachinery's `Requirement.Matches`). */
export function matchesRequirement(requirement: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = has ? labels[requirement.key]! : '';
  switch (requirement.operator) {
    case '=':
    case '==':
    case 'in':
      return has && requirement.values.includes(value);
    case '!=':
    case 'notin':
      return !has || !requirement.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !integer.test(value)) return false;
      const actual = Number(value);
      const bound = Number(requirement.values[0]);
      return requirement.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** A selector of these requirements (all must hold). */
export function selectorOf(requirements: readonly LabelRequirement[]): Selector {
  return {
    requirements,
    equalities: requirements.filter(({ operator }) => operator === '=' || operator === '==').map(({ key, values }) => [key, values[0]!] as const),
    matches: (labels) => requirements.every((requirement) => matchesRequirement(requirement, labels ?? {})),
  };
}

/** Parses the string form; throws `LabelSelectorError` with kube-apiserver's message. */
export function parseLabelSelector(text: string | null | undefined): Selector {
  const trimmed = (text ?? '').trim();
  return selectorOf(trimmed === '' ? [] : splitTerms(trimmed).map(parseTerm));
}

/** The selector every one of these labels must equal (`labels.SelectorFromSet`). */
export function selectorFromLabels(labels: Readonly<Record<string, string>>): Selector {
  return selectorOf(Object.entries(labels).map(([key, value]) => ({ key, operator: '=', values: [value] })));
}

import { OlmError } from '@olm/core';
import { RuntimeErrorCodes } from './errors.js';

/** One requirement of a label selector, e.g. `tier in (web,api)` or `!legacy`. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: 'equals' | 'notEquals' | 'in' | 'notIn' | 'exists' | 'doesNotExist';
  readonly values: readonly string[];
}

/** A parsed label selector: all requirements must hold. The empty selector matches everything. */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** `key=value` pairs every match must carry: the cache narrows candidates by them. */
  readonly equalities: ReadonlyArray<readonly [string, string]>;
}

const SET_PATTERN = /^\s*([^\s!=()]+)\s+(in|notin)\s+\(([^)]*)\)\s*$/;

/**
 * Parses the string form of a label selector (`a=b,c!=d,e in (f,g),h notin (i),j,!k`), the same
 * syntax as `kubectl -l` and the API's `labelSelector` parameter.
 */
export function parseLabelSelector(selector: string | undefined): LabelSelector {
  const requirements: LabelRequirement[] = [];
  for (const part of splitTopLevel(selector ?? '')) {
    const text = part.trim();
    if (text === '') continue;
    const set = SET_PATTERN.exec(text);
    if (set) {
      const values = set[3]!.split(',').map((value) => value.trim()).filter((value) => value !== '');
      requirements.push({ key: set[1]!, operator: set[2] === 'in' ? 'in' : 'notIn', values });
      continue;
    }
    const inequality = /^([^\s!=]+)\s*!=\s*(\S*)$/.exec(text);
    if (inequality) {
      requirements.push({ key: inequality[1]!, operator: 'notEquals', values: [inequality[2]!] });
      continue;
    }
    const equality = /^([^\s!=]+)\s*==?\s*(\S*)$/.exec(text);
    if (equality) {
      requirements.push({ key: equality[1]!, operator: 'equals', values: [equality[2]!] });
      continue;
    }
    const absent = /^!\s*([^\s!=()]+)$/.exec(text);
    if (absent) {
      requirements.push({ key: absent[1]!, operator: 'doesNotExist', values: [] });
      continue;
    }
    if (/^[^\s!=()]+$/.test(text)) {
      requirements.push({ key: text, operator: 'exists', values: [] });
      continue;
    }
    throw new OlmError(
      RuntimeErrorCodes.invalidArgument,
      `label selector "${selector}" has an invalid requirement "${text}"; use key=value, key!=value, key in (a,b), key notin (a,b), key or !key`,
      { details: { selector } },
    );
  }
  return selectorOf(requirements);
}

/** A selector from a `matchLabels` map (all pairs must match). */
export function selectorFromLabels(labels: Readonly<Record<string, string>>): LabelSelector {
  return selectorOf(Object.entries(labels).map(([key, value]) => ({ key, operator: 'equals', values: [value] })));
}

function selectorOf(requirements: readonly LabelRequirement[]): LabelSelector {
  return {
    requirements,
    equalities: requirements
      .filter((requirement) => requirement.operator === 'equals')
      .map((requirement) => [requirement.key, requirement.values[0]!] as const),
    matches: (labels) => requirements.every((requirement) => matchesRequirement(requirement, labels ?? {})),
  };
}

function matchesRequirement(requirement: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case 'equals':
      return has && value === requirement.values[0];
    case 'notEquals':
      return !has || value !== requirement.values[0];
    case 'in':
      return has && requirement.values.includes(value!);
    case 'notIn':
      return !has || !requirement.values.includes(value!);
    case 'exists':
      return has;
    case 'doesNotExist':
      return !has;
  }
}

/** Splits on commas outside parentheses: `a in (x,y),b` is two requirements. */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

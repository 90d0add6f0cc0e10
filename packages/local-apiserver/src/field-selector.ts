import { badRequest } from './errors.js';

/**
 * Field selectors (`fieldSelector=metadata.name=x,status.phase!=Running`): `=`, `==` and `!=` on the
 * fields a resource type supports; any other field is 400 `field label not supported: <field>`.
 */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  matches(fields: Readonly<Record<string, string>>): boolean;
  /** The value required for `field` with `=`, used to narrow lists (e.g. `metadata.name`). */
  exactValue(field: string): string | undefined;
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let index = 0; index < text.length; index++) {
    const ch = text[index] ?? '';
    if (ch === '\\' && index + 1 < text.length) {
      current += ch + (text[index + 1] ?? '');
      index++;
    } else if (ch === separator) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

export function parseFieldSelector(text: string | undefined | null, supportedFields: ReadonlySet<string>): FieldSelector {
  const trimmed = (text ?? '').trim();
  const requirements: FieldRequirement[] = [];
  if (trimmed !== '') {
    for (const term of splitUnescaped(trimmed, ',')) {
      const match = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/s.exec(term.trim());
      if (!match) throw badRequest(`invalid selector: '${trimmed}'; can't understand '${term}'`);
      const field = (match[1] ?? '').trim();
      if (!supportedFields.has(field)) throw badRequest(`field label not supported: ${field}`);
      requirements.push({ field, operator: match[2] === '!=' ? '!=' : '=', value: unescape((match[3] ?? '').trim()) });
    }
  }
  return {
    requirements,
    matches(fields) {
      return requirements.every((requirement) => {
        const actual = fields[requirement.field] ?? '';
        return requirement.operator === '=' ? actual === requirement.value : actual !== requirement.value;
      });
    },
    exactValue(field) {
      return requirements.find((requirement) => requirement.field === field && requirement.operator === '=')?.value;
    },
  };
}

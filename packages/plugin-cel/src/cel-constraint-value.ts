import { invalidConstraint } from './errors.js';

/** The value of the `cel` key of an `olm.constraint`: `{ rule }`. */
export interface CelConstraintValue {
  readonly rule: string;
}

/**
 * Reads the `cel` value as upstream's Go JSON decoder does (unknown fields rejected, field names
 * matched case-insensitively, same error texts), and additionally refuses a missing or blank rule.
 */
export function parseCelConstraintValue(value: unknown): CelConstraintValue {
  if (value === null || value === undefined) {
    throw invalidConstraint('constraint is empty', { field: 'cel' });
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalidConstraint(
      `json: cannot unmarshal ${goJsonKind(value)} into Go struct field Constraint.cel of type constraints.Cel`,
      { field: 'cel' },
    );
  }
  let rule: unknown;
  for (const [key, field] of Object.entries(value)) {
    if (key.toLowerCase() !== 'rule') {
      throw invalidConstraint(`json: unknown field ${JSON.stringify(key)}`, { field: `cel.${key}` });
    }
    rule = field;
  }
  if (rule !== undefined && rule !== null && typeof rule !== 'string') {
    throw invalidConstraint(
      `json: cannot unmarshal ${goJsonKind(rule)} into Go struct field Cel.cel.rule of type string`,
      { field: 'cel.rule' },
    );
  }
  if (typeof rule !== 'string' || rule.trim() === '') {
    throw invalidConstraint(
      'cel constraint has no rule: set cel.rule to a CEL expression over properties, e.g. properties.exists(p, p.type == "certified")',
      { field: 'cel.rule' },
    );
  }
  return { rule };
}

/** The JSON kind names Go's decoder prints in "cannot unmarshal X into …". */
function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

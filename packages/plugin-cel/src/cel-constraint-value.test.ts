import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { parseCelConstraintValue } from './cel-constraint-value.js';

function messageOf(value: unknown): string {
  try {
    parseCelConstraintValue(value);
  } catch (error) {
    expect(hasErrorCode(error, 'OLM_CEL_INVALID_CONSTRAINT')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a rejection');
}

describe('parseCelConstraintValue', () => {
  it('reads the rule', () => {
    expect(parseCelConstraintValue({ rule: 'true' })).toEqual({ rule: 'true' });
  });

  it('matches the field name case-insensitively, like Go encoding/json', () => {
    expect(parseCelConstraintValue({ Rule: 'false' })).toEqual({ rule: 'false' });
  });

  it('rejects unknown fields with upstream message', () => {
    expect(messageOf({ rule: 'true', expression: 'x' })).toBe('json: unknown field "expression"');
  });

  it('rejects a missing, empty or blank rule', () => {
    for (const value of [{}, { rule: '' }, { rule: '  \n' }, { rule: null }]) {
      expect(messageOf(value)).toContain('cel constraint has no rule');
    }
  });

  it('rejects a rule or value of the wrong JSON type with Go decoder texts', () => {
    expect(messageOf({ rule: 3 })).toBe('json: cannot unmarshal number into Go struct field Cel.cel.rule of type string');
    expect(messageOf('properties.exists(p, true)')).toBe(
      'json: cannot unmarshal string into Go struct field Constraint.cel of type constraints.Cel',
    );
    expect(messageOf([])).toContain('cannot unmarshal array');
    expect(messageOf(null)).toBe('constraint is empty');
  });
});

import { describe, expect, it } from 'vitest';
import { componentLabelKey, componentLabelSelector, invalidOperatorName, operatorNameFor, operatorNamesIn } from './component-labels.js';

describe('component labels', () => {
  it('names the Operator of a package after it and its namespace, and labels its components with that name', () => {
    expect(operatorNameFor('acme-database', 'team-a')).toBe('acme-database.team-a');
    expect(operatorNameFor('acme-database', '')).toBe('acme-database');
    expect(componentLabelKey('acme-database.team-a')).toBe('operators.coreos.com/acme-database.team-a');
    expect(componentLabelSelector('acme-database.team-a')).toEqual({ matchExpressions: [{ key: 'operators.coreos.com/acme-database.team-a', operator: 'Exists' }] });
  });

  it('cuts long names to the 63 characters of a label name, never ending on a separator', () => {
    const name = operatorNameFor('a'.repeat(62), 'namespace');
    expect(name).toBe('a'.repeat(62));
    expect(operatorNameFor('b'.repeat(60), 'namespace')).toBe(`${'b'.repeat(60)}.na`);
    expect(invalidOperatorName(operatorNameFor('c'.repeat(70), 'x'))).toBeUndefined();
  });

  it('refuses names that cannot name an Operator, saying why', () => {
    expect(invalidOperatorName('Acme.team')).toMatch(/^"Acme.team" cannot name an Operator: it must be at most 63 lowercase letters/);
    expect(invalidOperatorName('acme_db.team')).toBeDefined();
    expect(invalidOperatorName('')).toBeDefined();
    expect(invalidOperatorName('acme.team')).toBeUndefined();
  });

  it('finds the Operators an object belongs to among its labels', () => {
    expect(operatorNamesIn({ 'operators.coreos.com/a.ns': '', 'operators.coreos.com/b.ns': '', 'olm.owner': 'x', 'operators.coreos.com/': '' })).toEqual(['a.ns', 'b.ns']);
    expect(operatorNamesIn(undefined)).toEqual([]);
  });
});

import { Environment } from '@marcbachmann/cel-js';
import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { guardAst } from './ast-guard.js';
import { defaultCelLimits, resolveCelLimits } from './limits.js';

const environment = new Environment().registerVariable('properties', 'list<map<string, dyn>>');

function facts(rule: string, limits = defaultCelLimits) {
  return guardAst(environment.parse(rule).ast, rule, limits);
}

function rejection(rule: string, limits = defaultCelLimits): Error {
  try {
    facts(rule, limits);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected ${rule} to be rejected`);
}

describe('guardAst', () => {
  it('counts comprehensions and their nesting inside bodies, not receivers', () => {
    expect(facts('properties.exists(p, p.type == "a")')).toEqual({ comprehensions: 1, comprehensionNesting: 1, matches: 0 });
    expect(facts('properties.exists(p, p.value.items.all(i, i > 0))')).toEqual({ comprehensions: 2, comprehensionNesting: 2, matches: 0 });
    expect(facts('properties.filter(p, true).map(p, p.type).exists(t, t == "a")')).toEqual({
      comprehensions: 3,
      comprehensionNesting: 1,
      matches: 0,
    });
    expect(facts('size(properties) > 0 && [1].map(x, x * 2, x)[0] == 2 || true')).toEqual({
      comprehensions: 1,
      comprehensionNesting: 1,
      matches: 0,
    });
  });

  it('rejects comprehensions nested deeper than maxComprehensionNesting', () => {
    const rule = 'properties.exists(a, properties.exists(b, properties.exists(c, properties.exists(d, a == d))))';
    const error = rejection(rule);
    expect(hasErrorCode(error, 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
    expect(error.message).toContain('nests comprehensions (all, exists, exists_one, map, filter) 4 deep, more than the maximum of 3');
    expect(error.message).toContain('maxComprehensionNesting');
    expect(facts(rule, resolveCelLimits({ maxComprehensionNesting: 4 })).comprehensionNesting).toBe(4);
  });

  it('rejects more than maxComprehensions comprehensions', () => {
    const rule = Array.from({ length: 5 }, (_, index) => `properties.exists(p, p.type == "t${index}")`).join(' && ');
    const error = rejection(rule, resolveCelLimits({ maxComprehensions: 4 }));
    expect(hasErrorCode(error, 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
    expect(error.message).toContain('maxComprehensions');
  });

  it('finds comprehensions inside map literals, lists, ternaries and unary operators', () => {
    expect(facts('!{"a": [1].exists(x, x == 1)}["a"] ? [[2].all(y, y > 0)][0] : -size([3].filter(z, true)) == 0').comprehensions).toBe(3);
  });

  it('counts matches() calls, wherever they are', () => {
    expect(facts('properties.exists(p, p.type.matches("^olm[.]") || p.type.matches(p.type)) && "x".matches("x")').matches).toBe(3);
  });
});

import type { ConstraintCompileContext, Property } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { createCelConstraintEvaluator } from '../src/index.js';

const context: ConstraintCompileContext = {
  compile: () => {
    throw new Error('not used');
  },
};

interface Bundle {
  readonly name: string;
  readonly properties: readonly Property[];
}

function bundle(name: string, version: string, ...extra: Property[]): Bundle {
  return { name, properties: [{ type: 'olm.package', value: { packageName: name.split('.')[0], version } }, ...extra] };
}

const catalog: readonly Bundle[] = [
  bundle('red.v1.0.0', '1.0.0', { type: 'certified', value: {} }),
  bundle('red.v1.0.1', '1.0.1', { type: 'certified', value: {} }, { type: 'stable', value: {} }),
  bundle('blue.v1.0.2', '1.0.2', { type: 'stable', value: {} }),
  bundle('green.v0.9.0', '0.9.0', { type: 'olm.gvk', value: { group: 'greens.example.com', version: 'v1', kind: 'Green' } }),
];

/** The bundles an `olm.constraint` value's `cel` key selects, as the resolver would ask. */
function select(olmConstraint: { cel: unknown }): string[] {
  const predicate = createCelConstraintEvaluator().compile(olmConstraint.cel, context);
  return catalog.filter((candidate) => predicate.test(candidate)).map((candidate) => candidate.name);
}

describe('spec examples (dependency-resolution, generic constraints)', () => {
  it('require to have "certified"', () => {
    expect(
      select({ cel: { rule: 'properties.exists(p, p.type == "certified")' } }),
    ).toEqual(['red.v1.0.0', 'red.v1.0.1']);
  });

  it('require to have "certified" and "stable" properties', () => {
    expect(
      select({ cel: { rule: 'properties.exists(p, p.type == "certified") && properties.exists(p, p.type == "stable")' } }),
    ).toEqual(['red.v1.0.1']);
  });

  it('semver_compare selects bundles from version 1.0.1', () => {
    expect(
      select({ cel: { rule: 'properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.0.1") >= 0)' } }),
    ).toEqual(['red.v1.0.1', 'blue.v1.0.2']);
  });

  it('a CEL rule over a GVK property', () => {
    expect(
      select({ cel: { rule: 'properties.exists(p, p.type == "olm.gvk" && p.value == {"group": "greens.example.com", "version": "v1", "kind": "Green"})' } }),
    ).toEqual(['green.v0.9.0']);
  });
});

describe('upstream TestCelLibrary cases', () => {
  const properties: Property[] = [{ type: 'olm.test', value: '1.0.0' }];
  const cases: readonly [string, boolean][] = [
    ["properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') == 0))", true],
    ["properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.1') == 0))", false],
    ["properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') < 0))", false],
    ["properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') > 0))", false],
  ];
  for (const [rule, expected] of cases) {
    it(rule, () => {
      expect(createCelConstraintEvaluator().compile({ rule }, context).test({ properties })).toBe(expected);
    });
  }

  it('rejects an unknown function and a non-bool rule', () => {
    const evaluator = createCelConstraintEvaluator();
    expect(() =>
      evaluator.compile({ rule: "properties.exists(p, p.type == 'olm.test' && (doesnt_exist(p.value, '1.0.0') == 0))" }, context),
    ).toThrow(/doesnt_exist/);
    expect(() => evaluator.compile({ rule: '1' }, context)).toThrow('cel expressions must have type Bool');
  });
});

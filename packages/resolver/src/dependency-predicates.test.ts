import type { ConstraintEvaluator, Property } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { builtInConstraintEvaluators, DependencyCompiler, maxConstraintSize, propertiesFromDependencies } from './dependency-predicates.js';

const compiler = (extra: ConstraintEvaluator[] = []) =>
  new DependencyCompiler(new Map([...builtInConstraintEvaluators, ...extra].map((each) => [each.kind, each])));
const constraint = (value: unknown): Property => ({ type: 'olm.constraint', value });
const bundle = (...properties: Property[]) => ({ properties });
const pkg = (name: string, version: string): Property => ({ type: 'olm.package', value: { packageName: name, version } });
const gvk = (group: string, version: string, kind: string): Property => ({ type: 'olm.gvk', value: { group, version, kind } });

describe('dependency predicates', () => {
  it('keeps at most maxCached compiled dependencies, dropping the least recently used', () => {
    const bounded = new DependencyCompiler(new Map(builtInConstraintEvaluators.map((each) => [each.kind, each])), 3);
    const required = (name: string): Property => ({ type: 'olm.package.required', value: { packageName: name, versionRange: '>=1.0.0' } });
    const first = bounded.compile(required('a'));
    bounded.compile(required('b'));
    bounded.compile(required('c'));
    expect(bounded.compile(required('a'))).toBe(first); // a hit: now the most recently used
    bounded.compile(required('d')); // evicts b, the least recently used
    expect(bounded.cachedCount).toBe(3);
    expect(bounded.compile(required('a'))).toBe(first);
    const b = bounded.compile(required('b'));
    expect(b?.predicate.describe()).toBe('with package: b and with version in range: >=1.0.0');
    expect(bounded.cachedCount).toBe(3);
  });

  it('describes and tests legacy dependency properties as upstream', () => {
    const gvkRequired = compiler().compile({ type: 'olm.gvk.required', value: { group: 'g', version: 'v1', kind: 'K' } })!;
    expect(gvkRequired.predicate.describe()).toBe('providing an API with group: g, version: v1, kind: K');
    expect(gvkRequired.predicate.test(bundle(gvk('g', 'v1', 'K')))).toBe(true);
    expect(gvkRequired.predicate.test(bundle(gvk('g', 'v2', 'K')))).toBe(false);

    const packageRequired = compiler().compile({ type: 'olm.package.required', value: { packageName: 'etcd', versionRange: '>=1.0.0 <2.0.0' } })!;
    expect(packageRequired.predicate.describe()).toBe('with package: etcd and with version in range: >=1.0.0 <2.0.0');
    expect(packageRequired.predicate.test(bundle(pkg('etcd', '1.5.0')))).toBe(true);
    expect(packageRequired.predicate.test(bundle(pkg('etcd', '2.0.0')))).toBe(false);
    expect(packageRequired.predicate.test(bundle(pkg('other', '1.5.0')))).toBe(false);

    const label = compiler().compile({ type: 'olm.label.required', value: { label: 'x' } })!;
    expect(label.predicate.describe()).toBe('with label: x');
    expect(label.predicate.test(bundle({ type: 'olm.label', value: { label: 'x' } }))).toBe(true);
  });

  it('ignores properties that declare no dependency', () => {
    expect(compiler().compile(gvk('g', 'v1', 'K'))).toBeUndefined();
    expect(compiler().compile({ type: 'sushi', value: 'salmon' })).toBeUndefined();
  });

  it('compiles nested all/any/not with upstream texts and keeps failure messages', () => {
    const compiled = compiler().compile(
      constraint({
        failureMessage: 'outer',
        all: {
          constraints: [
            { package: { packageName: 'foo', versionRange: '>=1.0.0' } },
            { failureMessage: 'inner', not: { constraints: [{ gvk: { group: 'g', version: 'v1alpha1', kind: 'Foo' } }] } },
            { any: { constraints: [{ gvk: { group: 'g', version: 'v1', kind: 'A' } }, { gvk: { group: 'g', version: 'v1', kind: 'B' } }] } },
          ],
        },
      }),
    )!;
    expect(compiled.predicate.describe()).toBe(
      'with package: foo and with version in range: >=1.0.0 and providing an API with group: g, version: v1alpha1, kind: Foo and providing an API with group: g, version: v1, kind: A or providing an API with group: g, version: v1, kind: B',
    );
    expect(compiled.failureMessages).toEqual(['outer', 'inner']);
    expect(compiled.predicate.test(bundle(pkg('foo', '1.2.0'), gvk('g', 'v1', 'B')))).toBe(true);
    expect(compiled.predicate.test(bundle(pkg('foo', '1.2.0'), gvk('g', 'v1', 'B'), gvk('g', 'v1alpha1', 'Foo')))).toBe(false);
    expect(compiled.predicate.test(bundle(pkg('foo', '0.9.0'), gvk('g', 'v1', 'B')))).toBe(false);
  });

  it('joins not with "and not"', () => {
    const compiled = compiler().compile(constraint({ not: { constraints: [{ gvk: { group: 'a', version: 'v', kind: 'A' } }, { gvk: { group: 'b', version: 'v', kind: 'B' } }] } }))!;
    expect(compiled.predicate.describe()).toBe('providing an API with group: a, version: v, kind: A and not providing an API with group: b, version: v, kind: B');
  });

  it('rejects unknown fields at any depth, empty constraints and oversized values with upstream messages', () => {
    expect(() => compiler().compile(constraint({ unknown: {} }))).toThrowError('parse olm.constraint: json: unknown field "unknown"');
    expect(() => compiler().compile(constraint({ all: { constraints: [{ gvk: { group: 'g', version: 'v', kind: 'K', extra: 1 } }] } }))).toThrowError(
      'parse olm.constraint: json: unknown field "extra"',
    );
    expect(() => compiler().compile(constraint({ failureMessage: 'only a message' }))).toThrowError('convert olm.constraint to resolver predicate: constraint is empty');
    expect(() => compiler().compile(constraint({ any: { constraints: [{}] } }))).toThrowError('convert olm.constraint to resolver predicate: constraint is empty');
    const huge = { failureMessage: 'x'.repeat(maxConstraintSize), gvk: { group: 'g', version: 'v', kind: 'K' } };
    expect(() => compiler().compile(constraint(huge))).toThrowError(
      'parse olm.constraint: olm.constraint value is greater than max constraint size 131072 bytes',
    );
  });

  it('accepts a value of exactly 131072 bytes and refuses one byte more (upstream: len > 2<<16)', () => {
    // The raw JSON is measured in UTF-8 bytes: a two-byte character counts twice.
    const sized = (bytes: number) => {
      const base = JSON.stringify({ failureMessage: '', gvk: { group: 'g', version: 'v', kind: 'K' } });
      const filler = bytes - Buffer.byteLength(base, 'utf8');
      return JSON.stringify({ failureMessage: `é${'x'.repeat(filler - 2)}`, gvk: { group: 'g', version: 'v', kind: 'K' } });
    };
    expect(Buffer.byteLength(sized(maxConstraintSize), 'utf8')).toBe(131072);
    expect(compiler().compile(constraint(sized(maxConstraintSize)))!.predicate.describe()).toBe('providing an API with group: g, version: v, kind: K');
    expect(() => compiler().compile(constraint(sized(maxConstraintSize + 1)))).toThrowError(
      'parse olm.constraint: olm.constraint value is greater than max constraint size 131072 bytes',
    );
  });

  it('treats the deprecated "none" key as upstream does: it parses, but alone the constraint is empty and "not" wins', () => {
    const none = { none: { constraints: [{ gvk: { group: 'g', version: 'v', kind: 'K' } }] } };
    expect(() => compiler().compile(constraint(none))).toThrowError('convert olm.constraint to resolver predicate: constraint is empty');
    expect(() => compiler().compile(constraint({ none: { constraints: [{ gvk: { group: 'g', version: 'v', kind: 'K', extra: 1 } }] } }))).toThrowError(
      'parse olm.constraint: json: unknown field "extra"',
    );
    const both = compiler().compile(constraint({ ...none, not: { constraints: [{ gvk: { group: 'h', version: 'v', kind: 'H' } }] } }))!;
    expect(both.predicate.describe()).toBe('providing an API with group: h, version: v, kind: H');
    expect(both.predicate.test(bundle(gvk('g', 'v', 'K')))).toBe(true);
    expect(both.predicate.test(bundle(gvk('h', 'v', 'H')))).toBe(false);
  });

  it('hands cel (or any plugin kind) to its evaluator with the failure message', () => {
    const seen: unknown[] = [];
    const cel: ConstraintEvaluator = {
      kind: 'cel',
      compile: (value, context) => {
        seen.push(value, context.failureMessage);
        return { test: () => true, describe: () => `with constraint: ${JSON.stringify((value as { rule: string }).rule)} and message: ${JSON.stringify(context.failureMessage ?? '')}` };
      },
    };
    const compiled = compiler([cel]).compile(constraint({ failureMessage: 'needs certified', cel: { rule: 'true' } }))!;
    expect(seen).toEqual([{ rule: 'true' }, 'needs certified']);
    expect(compiled.predicate.describe()).toBe('with constraint: "true" and message: "needs certified"');
    expect(() => compiler().compile(constraint({ cel: { rule: 'true' } }))).toThrowError(/no evaluator for constraint kind "cel"/);
  });

  it('converts legacy dependencies.yaml entries', () => {
    expect(
      propertiesFromDependencies([
        { type: 'olm.gvk', value: { group: 'g', version: 'v1', kind: 'K' } },
        { type: 'olm.package', value: { packageName: 'p', version: '>0.27.0' } },
        { type: 'olm.label', value: { label: 'l' } },
      ]),
    ).toEqual([
      { type: 'olm.gvk.required', value: { group: 'g', version: 'v1', kind: 'K' } },
      { type: 'olm.package.required', value: { packageName: 'p', versionRange: '>0.27.0' } },
      { type: 'olm.label.required', value: { label: 'l' } },
    ]);
  });
});

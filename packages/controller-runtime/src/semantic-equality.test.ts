import { describe, expect, it } from 'vitest';
import { canonicalJson, isSemanticallyEqual, isUnset, withoutManagedFields } from './semantic-equality.js';

describe('isSemanticallyEqual', () => {
  it('ignores map key order at every depth', () => {
    const sent = { metadata: { labels: { 'olm.owner': 'og', 'olm.owner.namespace': 'ns', 'olm.owner.kind': 'OperatorGroup', 'olm.managed': 'true' } }, spec: { a: 1, b: { c: 2, d: 3 } } };
    const returned = { spec: { b: { d: 3, c: 2 }, a: 1 }, metadata: { labels: { 'olm.managed': 'true', 'olm.owner': 'og', 'olm.owner.kind': 'OperatorGroup', 'olm.owner.namespace': 'ns' } } };
    expect(JSON.stringify(sent)).not.toBe(JSON.stringify(returned));
    expect(isSemanticallyEqual(sent, returned)).toBe(true);
    expect(canonicalJson(sent)).toBe(canonicalJson(returned));
  });

  it('treats absent, undefined, null, empty lists and empty maps as unset', () => {
    expect(isSemanticallyEqual({ a: 1 }, { a: 1, b: null, c: [], d: {}, e: undefined, f: { g: [] } })).toBe(true);
    expect(isSemanticallyEqual(undefined, [])).toBe(true);
    expect(isSemanticallyEqual(null, {})).toBe(true);
    expect(isSemanticallyEqual({ rules: [] }, {})).toBe(true);
    expect(isUnset({ a: { b: null } })).toBe(true);
    expect(isUnset({ a: 0 })).toBe(false);
  });

  it('tells values apart: list order, zero values, types, extra fields', () => {
    expect(isSemanticallyEqual(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(isSemanticallyEqual({ replicas: 0 }, {})).toBe(false);
    expect(isSemanticallyEqual({ enabled: false }, {})).toBe(false);
    expect(isSemanticallyEqual({ name: '' }, {})).toBe(false);
    expect(isSemanticallyEqual({ port: 443 }, { port: '443' })).toBe(false);
    expect(isSemanticallyEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(isSemanticallyEqual({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(isSemanticallyEqual([1], { 0: 1 })).toBe(false);
    expect(isSemanticallyEqual([{ a: 1 }], [{ a: 1 }, { a: 1 }])).toBe(false);
  });

  it('keeps list positions: an unset item still counts', () => {
    expect(isSemanticallyEqual([null, 'a'], [{}, 'a'])).toBe(true);
    expect(isSemanticallyEqual([null, 'a'], ['a'])).toBe(false);
    expect(canonicalJson([{}, 'a'])).toBe('[null,"a"]');
  });

  it('gives the same canonical text exactly when values are equal', () => {
    const values = [{ a: [1, { b: null }] }, { a: [1, {}] }, { a: [1] }, { b: 1, a: [1, {}] }, {}, null, [], { a: [1, { b: 0 }] }];
    for (const left of values) {
      for (const right of values) expect(canonicalJson(left) === canonicalJson(right)).toBe(isSemanticallyEqual(left, right));
    }
    expect(canonicalJson({ b: 1, a: { d: [], c: 'x' } })).toBe('{"a":{"c":"x"},"b":1}');
  });

  it('keeps a hostile __proto__ key as a plain field', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    expect(canonicalJson(hostile)).toBe('{"__proto__":{"polluted":true},"a":1}');
    expect(isSemanticallyEqual(hostile, { a: 1 })).toBe(false);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(isSemanticallyEqual({ constructor: null, toString: [] }, {})).toBe(true);
  });

  it('compares an object rebuilt without managedFields with the live one', () => {
    const live = { metadata: { name: 'a', managedFields: [{ manager: 'kubectl' }] }, spec: { x: 1 } };
    const rebuilt = { spec: { x: 1 }, metadata: { name: 'a' } };
    expect(isSemanticallyEqual(rebuilt, live)).toBe(false);
    expect(isSemanticallyEqual(rebuilt, withoutManagedFields(live))).toBe(true);
    expect(live.metadata.managedFields).toHaveLength(1);
  });
});

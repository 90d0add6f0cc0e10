import { describe, expect, it } from 'vitest';
import { goJson, goStruct, jsonKind, sortMapKeys } from './index.js';

describe('goJson (encoding/json output)', () => {
  it('sorts map keys at every level in Go byte order and keeps array order', () => {
    expect(goJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(goJson({ '\u{10000}': 1, '\uffff': 2, B: 3, a: 4 })).toBe('{"B":3,"a":4,"\uffff":2,"\u{10000}":1}');
  });

  it('keeps struct field order and leaves out undefined (omitempty) fields', () => {
    const rule = goStruct([['verbs', ['get']], ['apiGroups', undefined], ['resources', ['pods']]]);
    expect(goJson([rule, null])).toBe('[{"verbs":["get"],"resources":["pods"]},null]');
    expect(goJson({ z: goStruct([['b', { y: 1, x: 2 }], ['a', 1]]) })).toBe('{"z":{"b":{"x":2,"y":1},"a":1}}');
  });

  it('escapes <, > and & unless told not to, U+2028/9 always, and writes controls as Go 1.22+', () => {
    expect(goJson('<a href="x">&</a>')).toBe('"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e"');
    expect(goJson('<&>', { escapeHtml: false })).toBe('"<&>"');
    expect(goJson('a\u2028b\u2029', { escapeHtml: false })).toBe('"a\\u2028b\\u2029"');
    expect(goJson('\b\f\n\r\t\u0001\u001f\\')).toBe('"\\b\\f\\n\\r\\t\\u0001\\u001f\\\\"');
  });

  it('writes a lone surrogate as U+FFFD but keeps pairs and escaped backslashes before "ud800" text', () => {
    expect(goJson('x\ud800y\udc00')).toBe('"x\ufffdy\ufffd"');
    expect(goJson('😀')).toBe('"😀"');
    expect(goJson('\\ud800')).toBe('"\\\\ud800"');
    expect(goJson('\\\ud800')).toBe('"\\\\\ufffd"');
  });

  it('writes numbers as Go writes float64 and leaves object order alone when asked', () => {
    expect(goJson([1, 1.5, 1e21, 1e-7, 123456789, -0.25])).toBe('[1,1.5,1e+21,1e-7,123456789,-0.25]');
    expect(goJson({ b: 1, a: 2 }, { sortMapKeys: false })).toBe('{"b":1,"a":2}');
    expect(goJson(undefined)).toBe('null');
    expect(goJson({ b: [1], a: {} }, { indent: 4 })).toBe('{\n    "a": {},\n    "b": [\n        1\n    ]\n}');
  });

  it('keeps a "__proto__" key as data and copies deeply nested input without recursion', () => {
    const parsed = JSON.parse('{"__proto__":{"x":1},"a":1}') as unknown;
    expect(goJson(parsed)).toBe('{"__proto__":{"x":1},"a":1}');
    let deep: unknown = 'leaf';
    for (let index = 0; index < 100_000; index += 1) deep = [deep];
    expect(Array.isArray(sortMapKeys(deep))).toBe(true);
  });

  it('names the kinds Go decoding errors name', () => {
    expect([null, 'x', 1, false, [], {}].map(jsonKind)).toEqual(['null', 'string', 'number', 'bool', 'array', 'object']);
  });
});

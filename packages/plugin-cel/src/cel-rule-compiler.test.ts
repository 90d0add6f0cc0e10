import { hasErrorCode, type Property } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { createCelRuleCompiler, NOT_BOOL_MESSAGE } from './cel-rule-compiler.js';

const compiler = createCelRuleCompiler();

function bundle(version: string, ...types: string[]): Property[] {
  return [
    { type: 'olm.package', value: { packageName: 'etcd', version } },
    ...types.map((type) => ({ type, value: {} })),
  ];
}

function compileError(rule: string, options = compiler): unknown {
  try {
    options.compile(rule);
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${rule} to be rejected`);
}

describe('createCelRuleCompiler: evaluation', () => {
  it('evaluates the spec example properties.exists(p, p.type == "certified")', () => {
    const rule = compiler.compile('properties.exists(p, p.type == "certified")');
    expect(rule.evaluate(bundle('1.0.0', 'certified')).matched).toBe(true);
    expect(rule.evaluate(bundle('1.0.0', 'stable')).matched).toBe(false);
  });

  it('evaluates the spec example requiring both certified and stable', () => {
    const rule = compiler.compile('properties.exists(p, p.type == "certified") && properties.exists(p, p.type == "stable")');
    expect(rule.evaluate(bundle('1.0.0', 'certified', 'stable')).matched).toBe(true);
    expect(rule.evaluate(bundle('1.0.0', 'certified')).matched).toBe(false);
    expect(rule.evaluate(bundle('1.0.0', 'stable')).matched).toBe(false);
  });

  it('selects bundles by semver_compare', () => {
    const rule = compiler.compile(
      'properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.0.1") >= 0)',
    );
    const chosen = ['0.9.0', '1.0.0', '1.0.1', '1.0.2-rc.1', '1.1.0', '1.0.1-alpha'].filter(
      (version) => rule.evaluate(bundle(version)).matched,
    );
    expect(chosen).toEqual(['1.0.1', '1.0.2-rc.1', '1.1.0']);
  });

  it('compares JSON numbers with CEL ints and doubles', () => {
    const rule = compiler.compile('properties.exists(p, p.type == "size" && p.value.count >= 3 && p.value.ratio < 0.5)');
    expect(rule.evaluate([{ type: 'size', value: { count: 4, ratio: 0.25 } }]).matched).toBe(true);
    expect(rule.evaluate([{ type: 'size', value: { count: 2, ratio: 0.25 } }]).matched).toBe(false);
  });

  it('treats evaluation errors as false and reports them', () => {
    const rule = compiler.compile('properties.all(p, p.value.missing == 1)');
    const result = rule.evaluate(bundle('1.0.0'));
    expect(result.matched).toBe(false);
    expect(String((result.error as Error).message)).toContain('No such key: missing');
  });

  it('treats an unparsable semver_compare argument as false', () => {
    const rule = compiler.compile('properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.0.0") >= 0)');
    const result = rule.evaluate(bundle('not-a-version'));
    expect(result.matched).toBe(false);
    expect(String((result.error as Error).message)).toContain("unable to parse 'not-a-version' to semver format");
  });

  it('keeps CEL error semantics: another element making exists() true wins over an error', () => {
    const rule = compiler.compile('properties.exists(p, semver_compare(p.value.version, "1.0.0") == 0)');
    expect(rule.evaluate([{ type: 'a', value: { version: 'x' } }, { type: 'b', value: { version: 'v1' } }]).matched).toBe(true);
  });

  it('gives a property without value a null value', () => {
    const rule = compiler.compile('properties.exists(p, p.type == "flag" && p.value == null)');
    expect(rule.evaluate([{ type: 'flag', value: undefined }]).matched).toBe(true);
    expect(rule.evaluate([{ type: 'flag', value: 'on' }]).matched).toBe(false);
  });

  it('remembers the answer per properties array', () => {
    const rule = compiler.compile('properties.exists(p, p.type == "certified")');
    const properties = bundle('1.0.0', 'certified');
    expect(rule.evaluate(properties)).toBe(rule.evaluate(properties));
  });

  it('accepts mixed list literals, as cel-go does', () => {
    expect(compiler.compile('size([1, "a"]) == 2').evaluate([]).matched).toBe(true);
  });
});

describe('createCelRuleCompiler: compile-time rejections', () => {
  it('rejects rules that are not bool with upstream message', () => {
    for (const rule of ['1', 'properties', 'properties[0].value', '"certified"']) {
      const error = compileError(rule);
      expect(hasErrorCode(error, 'OLM_CEL_INVALID_RULE'), rule).toBe(true);
      expect((error as Error).message).toBe(NOT_BOOL_MESSAGE);
    }
  });

  it('rejects syntax errors, unknown functions and unknown variables', () => {
    for (const [rule, text] of [
      ['properties.exists(p, p.type == ', 'Unexpected token'],
      ['doesnt_exist(1) == 0', 'doesnt_exist'],
      ['bundle.name == "x"', 'bundle'],
      ['semver_compare("1.0.0") == 0', 'semver_compare'],
    ] as const) {
      const error = compileError(rule);
      expect(hasErrorCode(error, 'OLM_CEL_INVALID_RULE'), rule).toBe(true);
      expect((error as Error).message, rule).toContain(text);
    }
  });

  it('rejects cel.bind, which upstream does not enable', () => {
    const error = compileError('cel.bind(x, 1, x == 1)');
    expect(hasErrorCode(error, 'OLM_CEL_INVALID_RULE')).toBe(true);
    expect((error as Error).message).toContain('cel.bind is not supported');
  });

  it('runs matches() on RE2: hostile patterns are just false, computed patterns work, Go syntax works', () => {
    const hostile = compiler.compile('properties.exists(p, p.type.matches("^(a+)+$"))');
    const result = hostile.evaluate([{ type: `${'a'.repeat(5_000)}!`, value: {} }]);
    expect(result.matched).toBe(false);
    expect(result.error).toBeUndefined();
    const computed = compiler.compile('properties.exists(p, p.type == "olm.package" && p.value.packageName.matches(p.value.version))');
    expect(computed.evaluate([{ type: 'olm.package', value: { packageName: 'etcd', version: 't.' } }]).matched).toBe(true);
    const go = compiler.compile('properties.exists(p, p.type.matches("(?i)^OLM\\\\.[[:alpha:]]+\\\\z") && p.value.packageName.matches("^\\\\pL+$"))');
    expect(go.evaluate([{ type: 'olm.package', value: { packageName: 'etcd', version: '1.0.0' } }])).toEqual({ matched: true, cost: expect.any(Number) });
  });

  it("makes a pattern Go refuses (lookaround, backreferences) an evaluation error with Go's message: false, as upstream", () => {
    for (const [pattern, message] of [
      ['(a)\\\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
      ['^olm(?=\\\\.)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ]) {
      const evaluation = compiler.compile(`properties.exists(p, p.type.matches("${pattern}"))`).evaluate(bundle('1.0.0'));
      expect(evaluation.matched, pattern).toBe(false);
      expect(String(evaluation.error), pattern).toContain(message);
    }
  });

  it('maps library parse limits to OLM_CEL_LIMIT_EXCEEDED naming the option', () => {
    const tight = createCelRuleCompiler({ limits: { maxAstNodes: 10, maxDepth: 4, maxListElements: 3 } });
    const nodes = compileError('1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 == 55', tight);
    expect(hasErrorCode(nodes, 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
    expect((nodes as Error).message).toContain('maxAstNodes');
    const depth = compileError('((((((true))))))', tight);
    expect((depth as Error).message).toContain('maxDepth');
    const list = compileError('size([1, 2, 3, 4]) == 4', tight);
    expect((list as Error).message).toContain('maxListElements');
  });

  it('caches compiled rules by text', () => {
    const cached = createCelRuleCompiler({ cacheSize: 1 });
    const first = cached.compile('true');
    expect(cached.compile('true')).toBe(first);
    cached.compile('false');
    expect(cached.compile('true')).not.toBe(first);
  });
});

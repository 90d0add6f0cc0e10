import { describe, expect, it } from 'vitest';
import { findExcessiveAliasing, indexOfYamlAnchor, measureAliasExpansion } from './alias-expansion.js';

/** The shape a YAML parser returns for a billion-laughs document: each level aliases the previous ten times. */
function laughs(levels: number, width = 10): Record<string, unknown> {
  let node: unknown = 'lol';
  const document: Record<string, unknown> = {};
  for (let level = 0; level < levels; level += 1) {
    node = Array.from({ length: width }, () => node);
    document[`l${level}`] = node;
  }
  return document;
}

describe('findExcessiveAliasing', () => {
  it('accepts plain documents, scalars and modest reuse', () => {
    expect(findExcessiveAliasing({ schema: 'olm.package', name: 'etcd', tags: ['a', 'b'], nested: { deep: [{ x: 1 }] } })).toBeUndefined();
    expect(findExcessiveAliasing('text')).toBeUndefined();
    expect(findExcessiveAliasing(null)).toBeUndefined();
    const labels = { app: 'x' };
    expect(findExcessiveAliasing({ selector: labels, template: { labels } })).toBeUndefined();
    expect(findExcessiveAliasing(laughs(3))).toBeUndefined();
  });

  it('refuses a billion laughs by its expanded size, without expanding it', () => {
    expect(findExcessiveAliasing(laughs(9))).toMatch(/^document contains excessive aliasing: with its aliases expanded it takes more than 67108864 bytes \(limit maxExpandedBytes\)/);
    expect(findExcessiveAliasing(laughs(30, 2))).toMatch(/maxExpandedBytes/);
  });

  it('counts a long string alias every time it is written out', () => {
    const long = 'x'.repeat(1_000_000);
    expect(findExcessiveAliasing({ items: Array.from({ length: 100 }, () => long) })).toMatch(/maxExpandedBytes/);
    expect(findExcessiveAliasing({ items: Array.from({ length: 10 }, () => long) })).toBeUndefined();
  });

  it('refuses too many aliases and applies given limits', () => {
    const shared = { a: 1 };
    expect(findExcessiveAliasing({ items: Array.from({ length: 10_002 }, () => shared) })).toMatch(/more than 10000 aliases \(limit maxAliases\)/);
    expect(findExcessiveAliasing(laughs(2), { maxAliases: 5, maxExpandedBytes: 1e9 })).toMatch(/more than 5 aliases/);
    expect(findExcessiveAliasing({ text: 'x'.repeat(100) }, { maxAliases: 5, maxExpandedBytes: 50 })).toMatch(/more than 50 bytes/);
  });

  it('refuses a document that contains itself', () => {
    const loop: unknown[] = [];
    loop.push({ again: loop });
    expect(findExcessiveAliasing({ loop })).toMatch(/recursive alias/);
  });

  it('handles nesting far deeper than the call stack', () => {
    let deep: unknown = 'end';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(findExcessiveAliasing(deep)).toBeUndefined();
  });
});

describe('measureAliasExpansion', () => {
  it('gives the size with every alias written out, so loaders can add documents up', () => {
    const long = 'x'.repeat(100_000);
    const once = measureAliasExpansion({ items: [long] });
    const tenTimes = measureAliasExpansion({ items: Array.from({ length: 10 }, () => long) });
    expect(once.problem).toBeUndefined();
    expect(once.expandedBytes).toBeGreaterThanOrEqual(JSON.stringify({ items: [long] }).length);
    expect(tenTimes.expandedBytes).toBeGreaterThanOrEqual(10 * long.length);
    expect(tenTimes.expandedBytes).toBeLessThan(11 * long.length);
    const expanded = JSON.stringify(laughs(4));
    expect(measureAliasExpansion(laughs(4)).expandedBytes).toBeGreaterThanOrEqual(expanded.length);
  });

  it('reports the refusal findExcessiveAliasing gives', () => {
    const refused = measureAliasExpansion(laughs(9));
    expect(refused.problem).toBe(findExcessiveAliasing(laughs(9)));
    expect(refused.expandedBytes).toBeGreaterThan(64 * 1024 * 1024);
  });
});

describe('indexOfYamlAnchor', () => {
  it('finds anchors wherever YAML allows them', () => {
    for (const [text, offset] of [['&a x', 0], ['a: &b\n  c: 1', 3], ['- &x [1]', 2], ['[&a 1, *a]', 1], ['{"k":&v 1}', 5], ['--- &doc\nx: 1', 4], ['key: !!map &m {}', 11], ['\uFEFF&a 1', 1]] as const) {
      expect(indexOfYamlAnchor(text), text).toBe(offset);
    }
  });

  it('ignores ampersands that cannot start an anchor', () => {
    for (const text of ['description: R&D tools', 'a: b & c', 'url: http://x?a=1&b=2', 'plain: x']) {
      expect(indexOfYamlAnchor(text), text).toBe(-1);
    }
  });
});

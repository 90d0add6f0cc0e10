import { describe, expect, it } from 'vitest';
import { compareYamlKeys, emitGoYaml } from './index.js';

describe('emitGoYaml (go-yaml v2 / libyaml output)', () => {
  it('sorts keys the go-yaml way: non-letters first, digit runs by value', () => {
    expect(['b', 'a10', 'a9', '_x', 'Z', 'a'].sort(compareYamlKeys)).toEqual(['_x', 'a', 'a9', 'a10', 'b', 'Z'].sort(compareYamlKeys));
    expect(['a10', 'a9'].sort(compareYamlKeys)).toEqual(['a9', 'a10']);
    expect(['b', '_x'].sort(compareYamlKeys)).toEqual(['_x', 'b']);
  });

  it('chooses scalar styles like go-yaml', () => {
    expect(emitGoYaml({ a: '5.1', b: 'true', c: '', d: 'yes', e: '2024-12-05T11:43:38Z', f: 'plain text', g: '>=1.0.0 <2.0.0', h: "it's: here", i: 'tab\there', j: 7, k: 1.5, l: null, m: false, n: 1e21 })).toBe(
      [
        'a: "5.1"',
        'b: "true"',
        'c: ""',
        'd: "yes"',
        'e: "2024-12-05T11:43:38Z"',
        'f: plain text',
        "g: '>=1.0.0 <2.0.0'",
        "h: 'it''s: here'",
        'i: "tab\\there"',
        'j: 7',
        'k: 1.5',
        'l: null',
        'm: false',
        '"n": 1e+21', // a YAML 1.1 boolean as a key is quoted too
        '',
      ].join('\n'),
    );
  });

  it('writes block structure with indentless sequences and flow empties', () => {
    expect(emitGoYaml({ entries: [{ name: 'a', skips: ['x', 'y'] }, { name: 'b' }], empty: {}, none: [], nested: { deep: { x: 1 } }, matrix: [[1, 2], []] })).toBe(
      ['empty: {}', 'entries:', '- name: a', '  skips:', '  - x', '  - "y"', '- name: b', 'matrix:', '- - 1', '  - 2', '- []', 'nested:', '  deep:', '    x: 1', 'none: []', ''].join('\n'),
    );
  });

  it('writes multi-line text as literal blocks with chomping indicators', () => {
    expect(emitGoYaml({ a: 'one\ntwo\n', b: 'one\ntwo', c: 'one\n\n', d: ' lead\nx' })).toBe(
      ['a: |', '  one', '  two', 'b: |-', '  one', '  two', 'c: |+', '  one', '', 'd: |2-', '   lead', '  x', ''].join('\n'),
    );
    // A line ending in a space cannot be a block scalar: double quotes instead.
    expect(emitGoYaml({ a: 'one \ntwo' })).toBe('a: "one \\ntwo"\n');
  });

  it('folds long plain and quoted text after column 80', () => {
    const words = Array.from({ length: 30 }, (_, index) => `word${index}`).join(' ');
    const lines = emitGoYaml({ description: words }).split('\n');
    expect(lines[0]?.length).toBeGreaterThan(80);
    expect(lines[0]?.startsWith('description: word0 word1')).toBe(true);
    expect(lines[1]?.startsWith('  word')).toBe(true);
    expect(lines.join(' ').replace(/\s+/g, ' ').trim()).toBe(`description: ${words}`);
  });
});

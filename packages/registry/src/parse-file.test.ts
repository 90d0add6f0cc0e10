import { describe, expect, it } from 'vitest';
import { parseCatalogFile } from './parse-file.js';

const parse = (text: string | Buffer) => parseCatalogFile(typeof text === 'string' ? Buffer.from(text) : text);

describe('parseCatalogFile', () => {
  it('picks JSON when the first non-space byte is `{`, YAML otherwise, and nothing for blank files', () => {
    expect(parse('  \n{"a": 1}{"b": 2}\n').format).toBe('json');
    expect(parse('a: 1\n').format).toBe('yaml');
    expect(parse(' \n\t\n')).toEqual({ format: 'empty', values: [] });
  });

  it('returns every JSON value with its line and index', () => {
    expect(parse('{"a": 1}\n\n{\n "b": 2\n} {"c": 3}').values).toEqual([
      { value: { a: 1 }, line: 1, index: 0 },
      { value: { b: 2 }, line: 3, index: 1 },
      { value: { c: 3 }, line: 5, index: 2 },
    ]);
  });

  it('returns every YAML document with the line of its content, skipping empty documents', () => {
    expect(parse('# head\n---\na: 1\n---\n# nothing\n---\n\n\nb: [1, 2]\n...\n').values).toEqual([
      { value: { a: 1 }, line: 3, index: 0 },
      { value: { b: [1, 2] }, line: 9, index: 1 },
    ]);
  });

  it('keeps values before an error, and reports Go-like messages with lines', () => {
    const json = parse('{"a": 1}\n{"b": }');
    expect(json.values).toHaveLength(1);
    expect(json.error).toMatchObject({ message: "invalid character '}' looking for beginning of value", line: 2 });
    const yaml = parse('a: 1\n---\nb: [\n');
    expect(yaml.values).toHaveLength(1);
    expect(yaml.error?.message).toMatch(/^yaml: line 4: /);
  });

  it('lets a repeated YAML key override (as go-yaml), resolves merge keys, and keeps timestamps as strings', () => {
    expect(parse('a: 1\na: 2\nbase: &b {x: 1}\nm:\n  <<: *b\n  y: 2\nt: 2024-01-02\n').values[0]?.value).toEqual({
      a: 2,
      base: { x: 1 },
      m: { x: 1, y: 2 },
      t: '2024-01-02',
    });
  });

  it('strips a UTF-8 byte order mark and replaces invalid UTF-8 in JSON strings (as Go)', () => {
    expect(parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a: 1\n')])).values[0]?.value).toEqual({ a: 1 });
    const json = parse(Buffer.concat([Buffer.from('{"a": "x'), Buffer.from([0xff]), Buffer.from('"}')]));
    expect(json.values[0]?.value).toEqual({ a: 'x\ufffd' });
  });
});

import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { admitResource } from '../src/index.js';

// Each folder under test/cases holds `input.yaml` (one resource) and `expected.yaml`:
//   errors:        field errors after pruning and defaulting, as `<field>: <message>`
//   unknownFields: the fields the API server would drop
//   defaulted:     (optional) a subset the stored object must contain
const casesDir = new URL('./cases/', import.meta.url);

interface Expected {
  errors: string[];
  unknownFields: string[];
  defaulted?: unknown;
}

describe('scenario cases', () => {
  const names = readdirSync(casesDir).sort();

  it('has cases', () => {
    expect(names.length).toBeGreaterThanOrEqual(10);
  });

  for (const name of names) {
    it(name, () => {
      const input = parse(readFileSync(new URL(`${name}/input.yaml`, casesDir), 'utf8')) as unknown;
      const expectedFile = new URL(`${name}/expected.yaml`, casesDir);
      const result = admitResource(input);
      const actual = { errors: result.errors.map((error) => (error.field ? `${error.field}: ${error.message}` : error.message)), unknownFields: result.unknownFields };
      if (!existsSync(expectedFile)) throw new Error(`missing ${name}/expected.yaml; actual:\n${JSON.stringify(actual, null, 2)}`);
      const expected = parse(readFileSync(expectedFile, 'utf8')) as Expected;
      expect(actual).toEqual({ errors: expected.errors, unknownFields: expected.unknownFields });
      if (expected.defaulted !== undefined) expect(result.object).toMatchObject(expected.defaulted as object);
    });
  }
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateCatalog } from '../src/index.js';

/**
 * One folder per `opm validate` rule under test/cases/validate/<rule>/: `catalog/` holds a
 * catalog that breaks the rule, `expected.txt` the report (upstream's message with file:line,
 * our hint, and upstream's `invalid index:` tree for model errors).
 */
const casesDir = fileURLToPath(new URL('./cases/validate', import.meta.url));
const cases = readdirSync(casesDir).sort();

/** Folders whose name is a scenario rather than the rule id they trigger. */
const ruleOf: Record<string, string> = { 'default-channel-not-found': 'empty-channel' };

describe('validate: one failing catalog per rule', () => {
  it('covers every rule', () => {
    expect(cases.length).toBeGreaterThanOrEqual(50);
  });

  it.each(cases)('%s', async (name) => {
    const report = await validateCatalog(join(casesDir, name, 'catalog'));
    expect(report.valid).toBe(false);
    const rule = name.startsWith('load-') ? 'load' : (ruleOf[name] ?? name);
    expect(report.errors.map((error) => error.rule)).toContain(rule);
    for (const error of report.errors) {
      expect(error.hint.length, `hint for ${error.message}`).toBeGreaterThan(0);
      expect(error.file, `file for ${error.message}`).toBeDefined();
    }
    expect(`${report.text}\n`).toBe(readFileSync(join(casesDir, name, 'expected.txt'), 'utf8'));
  });
});

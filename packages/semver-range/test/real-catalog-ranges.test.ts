import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseRange } from '../src/index.js';

const catalogDir = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));

/** Every `skipRange:` / `versionRange:` scalar in the catalog's YAML files (plain or single-quoted). */
function rangesInCatalog(): Set<string> {
  const ranges = new Set<string>();
  for (const packageDir of readdirSync(catalogDir, { withFileTypes: true })) {
    if (!packageDir.isDirectory()) continue;
    const text = readFileSync(join(catalogDir, packageDir.name, 'catalog.yaml'), 'utf8');
    for (const match of text.matchAll(/^\s*(?:skipRange|versionRange):\s*(.+?)\s*$/gm)) {
      const raw = match[1] ?? '';
      ranges.add(raw.startsWith("'") ? raw.slice(1, -1).replaceAll("''", "'") : raw.startsWith('"') ? (JSON.parse(raw) as string) : raw);
    }
  }
  return ranges;
}

describe('ranges of the real certified-operators catalog', () => {
  it('every skipRange and versionRange parses', () => {
    const ranges = rangesInCatalog();
    expect(ranges.size).toBeGreaterThan(150);
    const failures = [...ranges].flatMap((range) => {
      try {
        parseRange(range);
        return [];
      } catch (error) {
        return [`${range}: ${(error as Error).message}`];
      }
    });
    expect(failures).toEqual([]);
    expect(ranges).toContain('>= 1.18.0 < 1.25.5');
  });
});

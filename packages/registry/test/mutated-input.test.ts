import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCatalog, loadDeclarativeConfig, renderCatalog, validateCatalog } from '../src/index.js';

const realPackage = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18/amd-gpu-operator/catalog.yaml', import.meta.url));

/** Seeded mutations of a real package file: inserted tokens, cut spans, swapped lines, JSON-escaped text. */
describe('mutated real input never crashes the library', () => {
  it('load, build, validate and render survive 60 seeded mutations', async () => {
    const source = (await readFile(realPackage, 'utf8')).slice(0, 30_000);
    const tokens = ['null', '[]', '{}', '1', 'true', '"x"', '---\n', ': ', '- ', '\t', '"', "'", '[', '{', '&a ', '*a', '<<: *a\n', 'skips: [1]\n', 'skipRange: ">v1"\n', 'value:\n', 'schema: olm.bundle\n'];
    let seed = 20_251_122;
    const next = (limit: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % limit;
    };
    const dir = await mkdtemp(join(tmpdir(), 'olm-mutated-'));
    let invalid = 0;
    try {
      for (let round = 0; round < 60; round += 1) {
        let text = source;
        for (let edit = 0; edit < 1 + next(4); edit += 1) {
          const at = next(text.length);
          const kind = next(3);
          if (kind === 0) text = text.slice(0, at) + (tokens[next(tokens.length)] ?? '') + text.slice(at);
          else if (kind === 1) text = text.slice(0, at) + text.slice(at + next(40));
          else {
            const lines = text.split('\n');
            const a = next(lines.length);
            const b = next(lines.length);
            [lines[a], lines[b]] = [lines[b] ?? '', lines[a] ?? ''];
            text = lines.join('\n');
          }
        }
        await writeFile(join(dir, 'catalog.yaml'), text);
        const config = await loadDeclarativeConfig(dir);
        buildCatalog(config);
        renderCatalog(config, 'json');
        renderCatalog(config, 'yaml');
        const report = await validateCatalog(dir);
        if (!report.valid) invalid += 1;
        for (const error of report.errors) expect(error.hint.length).toBeGreaterThan(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(invalid).toBeGreaterThan(30);
  });
});

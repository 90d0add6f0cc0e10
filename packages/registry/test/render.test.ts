import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDeclarativeConfig, renderCatalog } from '../src/index.js';
import type { RenderFormat } from '../src/index.js';

const casesDir = fileURLToPath(new URL('./cases/render', import.meta.url));
const realCatalog = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));
const formats: RenderFormat[] = ['json', 'yaml'];

describe('render: test/cases/render/<scenario>/ (catalog/ → expected.json, expected.yaml)', async () => {
  const scenarios = (await readdir(casesDir)).sort();
  for (const scenario of scenarios) {
    for (const format of formats) {
      it(`${scenario} as ${format}`, async () => {
        const config = await loadDeclarativeConfig(join(casesDir, scenario, 'catalog'));
        expect(config.errors).toEqual([]);
        expect(renderCatalog(config, format)).toBe(await readFile(join(casesDir, scenario, `expected.${format}`), 'utf8'));
      });
    }
  }
});

async function renderRoundTrip(text: string, format: RenderFormat): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'olm-render-'));
  try {
    await writeFile(join(dir, `catalog.${format}`), text);
    const config = await loadDeclarativeConfig(dir);
    expect(config.errors).toEqual([]);
    return renderCatalog(config, format);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('render of the real catalog is a fixed point', () => {
  let config: Awaited<ReturnType<typeof loadDeclarativeConfig>>;
  beforeAll(async () => {
    config = await loadDeclarativeConfig(realCatalog);
  });

  it.each(formats)('%s: render → load → render gives the same bytes', async (format) => {
    const first = renderCatalog(config, format);
    expect(first.length).toBeGreaterThan(10_000_000);
    const second = await renderRoundTrip(first, format);
    expect(second === first).toBe(true);
  });
});

describe('render -o yaml writes what opm writes', () => {
  it('reproduces the real catalog files byte for byte (all but two hand-edited ones)', async () => {
    const packages = (await readdir(realCatalog, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    // Not opm output: channels out of name order (eda-openshift-operator), icon after schema (linstor-operator).
    const handEdited = new Set(['eda-openshift-operator', 'linstor-operator']);
    const mismatches: string[] = [];
    for (const name of packages) {
      const original = await readFile(join(realCatalog, name, 'catalog.yaml'), 'utf8');
      const rendered = renderCatalog(await loadDeclarativeConfig(join(realCatalog, name)), 'yaml');
      if (rendered !== original) mismatches.push(name);
    }
    expect(packages).toHaveLength(59);
    expect(mismatches.sort()).toEqual([...handEdited].sort());
  });
});

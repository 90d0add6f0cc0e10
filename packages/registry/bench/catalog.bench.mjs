// Load/validate benchmarks. Prints one JSON line per case.
// Run: pnpm --filter @olm/registry bench   (node --expose-gc, after `pnpm build`)
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import jsYaml from 'js-yaml';
import { parseAllDocuments } from 'yaml';
import {
  generateSyntheticConfig,
  loadCatalog,
  loadDeclarativeConfig,
  renderJsonBlob,
  renderCatalog,
  renderOrder,
  validateCatalog,
} from '../dist/index.js';

const realCatalog = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));
const gc = globalThis.gc;
const runs = Number(process.env.BENCH_RUNS ?? 3);

function filesBelow(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesBelow(path);
    return entry.name.startsWith('.') ? [] : [path];
  });
}

function heapUsed() {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** Median of `runs` timed runs (after a cold first run, reported separately). */
async function time(run) {
  const cold = performance.now();
  await run();
  const coldMs = performance.now() - cold;
  const samples = [];
  for (let index = 0; index < runs; index += 1) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  // The machine is shared: the minimum is the least disturbed run; the median is reported too.
  return { coldMs: Math.round(coldMs), ms: Math.round(samples[Math.floor(samples.length / 2)]), minMs: Math.round(samples[0]) };
}

/** Heap still used after `build()` returns, while its result is kept alive. */
async function retained(build) {
  const before = heapUsed();
  const kept = await build();
  const after = heapUsed();
  return { bytes: after - before, kept };
}

const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const print = (record) => process.stdout.write(`${JSON.stringify(record)}\n`);

if (gc === undefined) print({ note: 'run with node --expose-gc to measure retained heap' });

// --- the real catalog -------------------------------------------------------------------------
const files = filesBelow(realCatalog);
const catalogBytes = files.reduce((sum, file) => sum + statSync(file).size, 0);

// Baseline and library runs alternate, so a busy moment on the shared machine hits both alike.
const samples = { baseline: [], load: [], validate: [] };
for (let index = 0; index <= runs; index += 1) {
  let start = performance.now();
  for (const file of files) jsYaml.loadAll(await readFile(file, 'utf8'));
  samples.baseline.push(performance.now() - start);
  start = performance.now();
  await loadDeclarativeConfig(realCatalog);
  samples.load.push(performance.now() - start);
  start = performance.now();
  await validateCatalog(realCatalog);
  samples.validate.push(performance.now() - start);
}
const summary = (values) => {
  const [cold, ...warm] = values;
  const sorted = [...warm].sort((a, b) => a - b);
  return { coldMs: Math.round(cold), ms: Math.round(sorted[Math.floor(sorted.length / 2)]), minMs: Math.round(sorted[0]) };
};
const jsYamlBaseline = summary(samples.baseline);
print({ case: 'real/parse-only js-yaml (baseline)', files: files.length, catalogMB: mb(catalogBytes), ...jsYamlBaseline });

const yamlStart = performance.now();
for (const file of files) for (const document of parseAllDocuments(await readFile(file, 'utf8'))) document.toJS();
print({ case: 'real/parse-only yaml package (reference, one run)', ms: Math.round(performance.now() - yamlStart) });

const load = summary(samples.load);
print({ case: 'real/loadDeclarativeConfig', ...load, vsBaseline: Math.round((load.minMs / jsYamlBaseline.minMs) * 100) / 100 });

const validate = summary(samples.validate);
print({ case: 'real/validateCatalog (load + convert + validate)', ...validate, vsBaseline: Math.round((validate.minMs / jsYamlBaseline.minMs) * 100) / 100 });

const config = await loadDeclarativeConfig(realCatalog);
for (const format of ['json', 'yaml']) {
  let bytes = 0;
  const render = await time(() => {
    bytes = renderCatalog(config, format).length;
  });
  print({ case: `real/renderCatalog ${format}`, outputMB: mb(bytes), ...render });
}

const parsedOnly = await retained(async () => Promise.all(files.map(async (file) => jsYaml.loadAll(await readFile(file, 'utf8')))));
const loaded = await retained(() => loadCatalog(realCatalog));
print({
  case: 'real/retained heap',
  catalogMB: mb(catalogBytes),
  parsedDocumentsMB: mb(parsedOnly.bytes),
  catalogModelMB: mb(loaded.bytes),
  modelVsCatalogBytes: Math.round((loaded.bytes / catalogBytes) * 100) / 100,
  bundles: [...loaded.kept.bundles()].length,
});

// --- synthetic catalogs -----------------------------------------------------------------------
async function writeSynthetic(dir, config) {
  const byPackage = new Map();
  for (const blob of renderOrder(config)) {
    const name = blob.schema === 'olm.package' ? blob.name : blob.package;
    byPackage.set(name, (byPackage.get(name) ?? '') + renderJsonBlob(blob));
  }
  let bytes = 0;
  for (const [name, text] of byPackage) {
    await mkdir(join(dir, name), { recursive: true });
    await writeFile(join(dir, name, 'catalog.json'), text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

for (const [label, packages, versionsPerPackage] of [
  ['synthetic-10k', 200, 50],
  ['synthetic-50k', 500, 100],
]) {
  const dir = await mkdtemp(join(tmpdir(), `olm-bench-${label}-`));
  try {
    const generateStart = performance.now();
    const config = generateSyntheticConfig({ seed: 1, packages, versionsPerPackage });
    const generateMs = Math.round(performance.now() - generateStart);
    const bytes = await writeSynthetic(dir, config);
    const before = heapUsed();
    const start = performance.now();
    const report = await validateCatalog(dir);
    const validateMs = Math.round(performance.now() - start);
    const catalog = await loadCatalog(dir);
    const after = heapUsed();
    print({
      case: `${label}/validateCatalog`,
      bundles: packages * versionsPerPackage,
      valid: report.valid,
      filesMB: mb(bytes),
      generateMs,
      ms: validateMs,
      heapGrowthMB: mb(after - before),
      heapPerBundleKB: Math.round(((after - before) / (packages * versionsPerPackage) / 1024) * 10) / 10,
      packages: catalog.packages.size,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

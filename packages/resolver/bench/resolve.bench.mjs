// Resolution benchmarks. Prints one JSON line per case. Run after `pnpm build`:
//   node bench/resolve.bench.mjs            (all cases)
//   node bench/resolve.bench.mjs real       (only cases whose name contains "real")
// Targets: real catalog, each package alone: median < 5 ms, max < 50 ms; all resolvable packages
// at once < 500 ms; synthetic 500 packages x 20 versions, 50 subscriptions < 2 s; 50k bundles < 5 s.
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { generateSyntheticCatalog, loadCatalog } from '@olm/registry';
import { createResolver } from '../dist/index.js';

const only = process.argv[2];
const realCatalogPath = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));
const resolver = createResolver({ satBackend: createLogicSolverBackend() });

function emit(record) {
  // The machine's load is printed too: timings on a busy shared machine are not comparable.
  const loadAverage = Math.round(loadavg()[0] * 10) / 10;
  process.stdout.write(`${JSON.stringify({ ...record, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), loadAverage })}\n`);
}

function timed(run) {
  const start = process.hrtime.bigint();
  let result;
  let error;
  try {
    result = run();
  } catch (caught) {
    error = caught;
  }
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result, error };
}

const round = (value) => Math.round(value * 100) / 100;
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function realCatalogCases() {
  const loadStart = process.hrtime.bigint();
  const content = await loadCatalog(realCatalogPath);
  const loadMs = Number(process.hrtime.bigint() - loadStart) / 1e6;
  const catalogs = [{ name: 'certified-operators', namespace: 'openshift-marketplace', priority: 0, content }];
  const subscriptionFor = (pkg) => ({
    name: pkg.name,
    package: pkg.name,
    channel: pkg.defaultChannel,
    source: 'certified-operators',
    sourceNamespace: 'openshift-marketplace',
  });
  // The first resolution builds the per-catalog index and the first MiniSat instance (tens of ms);
  // a running controller pays that once, so it is reported apart and the timed runs are warm.
  const packages = [...content.packages.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  const first = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions: [subscriptionFor(packages[0])] }));
  const times = [];
  const resolvable = [];
  let unsatisfiable = 0;
  let invalid = 0;
  let maxCalls = 0;
  for (const pkg of packages) {
    const { ms, result, error } = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions: [subscriptionFor(pkg)] }));
    times.push(ms);
    if (result) {
      resolvable.push(pkg);
      maxCalls = Math.max(maxCalls, result.stats.solverCalls);
    } else if (error?.code === 'OLM_RESOLVER_UNSATISFIABLE') unsatisfiable++;
    else invalid++;
  }
  times.sort((a, b) => a - b);
  const median = percentile(times, 0.5);
  const max = times[times.length - 1];
  emit({
    case: 'real-catalog/each-package-alone',
    packages: times.length,
    resolved: resolvable.length,
    unsatisfiable,
    invalid,
    catalogLoadMs: round(loadMs),
    firstResolutionMs: round(first.ms),
    medianMs: round(median),
    p90Ms: round(percentile(times, 0.9)),
    maxMs: round(max),
    maxSolverCalls: maxCalls,
    target: 'median < 5 ms, max < 50 ms',
    met: median < 5 && max < 50,
  });

  const all = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions: resolvable.map(subscriptionFor) }));
  emit({
    case: 'real-catalog/all-resolvable-at-once',
    subscriptions: resolvable.length,
    status: all.result ? 'Resolved' : all.error?.code,
    operators: all.result?.operators.length,
    ms: round(all.ms),
    ...(all.result ? pickStats(all.result.stats) : {}),
    target: '< 500 ms',
    met: Boolean(all.result) && all.ms < 500,
  });
}

function pickStats(stats) {
  return {
    solverCalls: stats.solverCalls,
    evaluationUnits: stats.evaluationUnits,
    variables: stats.variables,
    clauses: stats.clauses,
    bundleVariables: stats.bundleVariables,
    buildMs: stats.buildMs,
    solveMs: stats.solveMs,
  };
}

/** Small seeded PRNG (mulberry32). */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An OLM-shaped synthetic catalog (the model of the toolchain notes): package p provides
 * `p.example.com/v1 Kind` in its first 60% of versions and `/v2` in its last 60% (so they overlap),
 * 30% of versions provide one foreign API too, and each version requires 0-2 APIs of other packages.
 */
function syntheticCatalog({ seed, packages, versionsPerPackage }) {
  const next = random(seed);
  const pick = (n) => Math.floor(next() * n);
  const name = (p) => `pkg${String(p).padStart(4, '0')}`;
  const api = (p, version) => ({ group: `${name(p)}.example.com`, version, kind: 'Thing' });
  const content = new Map();
  for (let p = 0; p < packages; p++) {
    const bundles = new Map();
    const entries = [];
    for (let v = 0; v < versionsPerPackage; v++) {
      const bundleName = `${name(p)}.v${v}.0.0`;
      const properties = [{ type: 'olm.package', value: { packageName: name(p), version: `${v}.0.0` } }];
      if (v < 0.6 * versionsPerPackage) properties.push({ type: 'olm.gvk', value: api(p, 'v1') });
      if (v >= 0.4 * versionsPerPackage) properties.push({ type: 'olm.gvk', value: api(p, 'v2') });
      if (next() < 0.3) properties.push({ type: 'olm.gvk', value: { group: `extra${pick(packages)}.example.com`, version: 'v1', kind: 'Extra' } });
      const dependencies = pick(3);
      for (let d = 0; d < dependencies; d++) {
        let other = pick(packages);
        if (other === p) other = (other + 1) % packages;
        properties.push({ type: 'olm.gvk.required', value: api(other, next() < 0.5 ? 'v1' : 'v2') });
      }
      bundles.set(bundleName, { name: bundleName, package: name(p), image: `example.com/${bundleName}`, version: `${v}.0.0`, properties });
      entries.push(v === 0 ? { name: bundleName } : { name: bundleName, replaces: `${name(p)}.v${v - 1}.0.0` });
    }
    content.set(name(p), {
      name: name(p),
      defaultChannel: 'stable',
      channels: new Map([['stable', { name: 'stable', package: name(p), entries }]]),
      bundles,
    });
  }
  return { packages: content };
}

function syntheticCase(label, generate, options, subscriptionCount, targetMs) {
  const buildStart = process.hrtime.bigint();
  const content = generate(options);
  const generateMs = Number(process.hrtime.bigint() - buildStart) / 1e6;
  const catalogs = [{ name: 'synthetic', namespace: 'olm', priority: 0, content }];
  const next = random(options.seed + 1);
  const names = [...content.packages.keys()].sort();
  const chosen = new Set();
  while (chosen.size < subscriptionCount) chosen.add(names[Math.floor(next() * names.length)]);
  const subscriptions = [...chosen].sort().map((pkg) => ({
    name: pkg,
    package: pkg,
    channel: content.packages.get(pkg).defaultChannel,
    source: 'synthetic',
    sourceNamespace: 'olm',
  }));
  const first = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions }));
  const second = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions }));
  const outcome = first.result ? 'Resolved' : (first.error?.code ?? String(first.error));
  emit({
    case: label,
    bundles: options.packages * options.versionsPerPackage,
    subscriptions: subscriptionCount,
    status: outcome,
    ...(first.error && first.error.code !== 'OLM_RESOLVER_UNSATISFIABLE' ? { error: String(first.error.message ?? first.error).slice(0, 200) } : {}),
    operators: first.result?.operators.length,
    generateMs: round(generateMs),
    coldMs: round(first.ms),
    warmMs: round(second.ms),
    ...(first.result ? pickStats(first.result.stats) : {}),
    target: `< ${targetMs} ms`,
    met: first.ms < targetMs && (outcome === 'Resolved' || outcome === 'OLM_RESOLVER_UNSATISFIABLE'),
  });
}

if (!only || 'real'.includes(only) || only.includes('real')) await realCatalogCases();
if (!only || only.includes('synthetic')) {
  // @olm/registry's generator: real-catalog shapes (several channels, skips, skipRanges), acyclic deps.
  syntheticCase('registry-synthetic/500x20-50-subscriptions', generateSyntheticCatalog, { seed: 42, packages: 500, versionsPerPackage: 20 }, 50, 2000);
  syntheticCase('registry-synthetic/2500x20-50k-bundles-50-subscriptions', generateSyntheticCatalog, { seed: 7, packages: 2500, versionsPerPackage: 20 }, 50, 5000);
  // This file's generator: competing API versions inside packages and random cross-package deps (harder).
  syntheticCase('conflicting-synthetic/500x20-50-subscriptions', syntheticCatalog, { seed: 42, packages: 500, versionsPerPackage: 20 }, 50, 2000);
  syntheticCase('conflicting-synthetic/2500x20-50k-bundles-50-subscriptions', syntheticCatalog, { seed: 7, packages: 2500, versionsPerPackage: 20 }, 50, 5000);
}

// CDCL vs logic-solver on the same workloads. Prints one JSON line per case and backend. Run after
// `pnpm build` (it imports this package's dist and the other packages' dist):
//   node bench/cdcl.bench.mjs            (all cases)
//   node bench/cdcl.bench.mjs real       (only cases whose name contains "real")
// Each case runs in a fresh child process per backend, so `peakRssMb` is that case's own peak.
// Timings on a shared machine are rough sizes; the load average is printed beside them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { generateSyntheticCatalog, loadCatalog } from '@olm/registry';
import { builtInConstraintEvaluators, createResolver } from '@olm/resolver';
import { createCdclBackend } from '../dist/index.js';

const thisFile = fileURLToPath(import.meta.url);
const realCatalogPath = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));
const backends = { cdcl: createCdclBackend, 'logic-solver': createLogicSolverBackend };

const resultMarker = '@@cdcl-bench ';
const round = (value) => Math.round(value * 100) / 100;
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

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

/** A short digest of what was resolved, to check both backends give the same answers. */
function digest(values) {
  return createHash('sha256').update(JSON.stringify(values)).digest('hex').slice(0, 12);
}

function answerOf({ result, error }) {
  if (result) return result.operators.map((operator) => operator.name);
  return error?.code ?? String(error);
}

/** Time spent inside the SAT backend (every call of every solver), apart from the resolver's own work. */
const satTime = { ms: 0, solves: 0 };

function measured(backend) {
  const clock = (call) => {
    const start = process.hrtime.bigint();
    try {
      return call();
    } finally {
      satTime.ms += Number(process.hrtime.bigint() - start) / 1e6;
    }
  };
  return {
    name: backend.name,
    createSolver() {
      const solver = clock(() => backend.createSolver());
      return {
        newVariable: () => clock(() => solver.newVariable()),
        addClause: (literals) => clock(() => solver.addClause(literals)),
        addAtMostOne: (literals, condition) => clock(() => solver.addAtMostOne(literals, condition)),
        solve: (assumptions) => {
          satTime.solves++;
          return clock(() => solver.solve(assumptions));
        },
        dispose: () => clock(() => solver.dispose()),
      };
    },
  };
}

function resolverFor(backend) {
  return createResolver({ satBackend: measured(backends[backend]()), constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()] });
}

function satFigures() {
  const figures = { satMs: round(satTime.ms), satSolves: satTime.solves };
  satTime.ms = 0;
  satTime.solves = 0;
  return figures;
}

function pickStats(stats) {
  return { solverCalls: stats.solverCalls, variables: stats.variables, clauses: stats.clauses, buildMs: stats.buildMs, solveMs: stats.solveMs };
}

// ---- cases (each runs in its own process) ----------------------------------------------------------

async function realCatalog(backend, allAtOnce) {
  const content = await loadCatalog(realCatalogPath);
  const catalogs = [{ name: 'certified-operators', namespace: 'openshift-marketplace', priority: 0, content }];
  const subscriptionFor = (pkg) => ({ name: pkg.name, package: pkg.name, channel: pkg.defaultChannel, source: 'certified-operators', sourceNamespace: 'openshift-marketplace' });
  const resolver = resolverFor(backend);
  const packages = [...content.packages.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  const first = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions: [subscriptionFor(packages[0])] }));
  satFigures();
  const times = [];
  const answers = [];
  const resolvable = [];
  for (const pkg of packages) {
    const run = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions: [subscriptionFor(pkg)] }));
    times.push(run.ms);
    answers.push(answerOf(run));
    if (run.result) resolvable.push(pkg);
  }
  if (!allAtOnce) {
    const sorted = [...times].sort((a, b) => a - b);
    return {
      packages: packages.length,
      resolved: resolvable.length,
      firstResolutionMs: round(first.ms),
      totalMs: round(times.reduce((sum, ms) => sum + ms, 0)),
      medianMs: round(percentile(sorted, 0.5)),
      p90Ms: round(percentile(sorted, 0.9)),
      maxMs: round(sorted[sorted.length - 1]),
      ...satFigures(),
      answers: digest(answers),
    };
  }
  satFigures();
  const all = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions: resolvable.map(subscriptionFor) }));
  const sat = satFigures();
  const warm = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions: resolvable.map(subscriptionFor) }));
  return {
    subscriptions: resolvable.length,
    status: all.result ? 'Resolved' : (all.error?.code ?? String(all.error)),
    operators: all.result?.operators.length,
    ms: round(all.ms),
    warmMs: round(warm.ms),
    ...sat,
    ...(all.result ? pickStats(all.result.stats) : {}),
    answers: digest(answerOf(all)),
  };
}

function synthetic(backend, options, subscriptionCount) {
  const content = generateSyntheticCatalog(options);
  const catalogs = [{ name: 'synthetic', namespace: 'olm', priority: 0, content }];
  // The same seeded choice of subscriptions as packages/resolver/bench.
  let state = (options.seed + 1) >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const names = [...content.packages.keys()].sort();
  const chosen = new Set();
  while (chosen.size < subscriptionCount) chosen.add(names[Math.floor(next() * names.length)]);
  const subscriptions = [...chosen].sort().map((pkg) => ({ name: pkg, package: pkg, channel: content.packages.get(pkg).defaultChannel, source: 'synthetic', sourceNamespace: 'olm' }));
  const resolver = resolverFor(backend);
  const cold = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions }));
  const sat = satFigures();
  const warm = timed(() => resolver.resolve({ namespace: 'operators', catalogs, subscriptions }));
  return {
    bundles: options.packages * options.versionsPerPackage,
    subscriptions: subscriptionCount,
    status: cold.result ? 'Resolved' : (cold.error?.code ?? String(cold.error)),
    operators: cold.result?.operators.length,
    coldMs: round(cold.ms),
    warmMs: round(warm.ms),
    ...sat,
    ...(cold.result ? pickStats(cold.result.stats) : {}),
    answers: digest(answerOf(cold)),
  };
}

/** A raw SAT problem past logic-solver's 64 MiB heap: an implication chain plus random 3-clauses (satisfiable). */
function largeRawProblem(backend, variables, clauses) {
  let state = 12345;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const start = process.hrtime.bigint();
  const solver = backends[backend]().createSolver();
  let status;
  let solveMs;
  try {
    for (let v = 0; v < variables; v++) solver.newVariable();
    for (let v = 1; v < variables; v++) solver.addClause([-v, v + 1]);
    for (let c = 0; c < clauses; c++) {
      const pick = () => 1 + Math.floor(next() * variables);
      solver.addClause([pick(), -pick(), pick()]);
    }
    const solveStart = process.hrtime.bigint();
    const outcome = solver.solve([1]);
    solveMs = round(Number(process.hrtime.bigint() - solveStart) / 1e6);
    status = outcome.satisfiable ? 'SAT' : 'UNSAT';
  } catch (error) {
    status = error?.code ?? String(error);
  }
  return { variables, clauses: variables - 1 + clauses, status, solveMs, totalMs: round(Number(process.hrtime.bigint() - start) / 1e6) };
}

const cases = {
  'real-catalog/each-package-alone': (backend) => realCatalog(backend, false),
  'real-catalog/all-resolvable-at-once': (backend) => realCatalog(backend, true),
  'registry-synthetic/500x20-50-subscriptions': (backend) => synthetic(backend, { seed: 42, packages: 500, versionsPerPackage: 20 }, 50),
  'registry-synthetic/2500x20-50-subscriptions': (backend) => synthetic(backend, { seed: 7, packages: 2500, versionsPerPackage: 20 }, 50),
  'raw-sat/300k-variables-600k-clauses': (backend) => largeRawProblem(backend, 300_000, 300_000),
};

// ---- driver ------------------------------------------------------------------------------------------

if (process.argv[2] === '--child') {
  const [, , , name, backend] = process.argv;
  const record = await cases[name](backend);
  // On a line of its own after a marker: MiniSat prints to stdout when it runs out of heap.
  process.stdout.write(`\n${resultMarker}${JSON.stringify({ ...record, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
} else {
  const only = process.argv[2];
  for (const name of Object.keys(cases)) {
    if (only && !name.includes(only)) continue;
    const answers = {};
    for (const backend of Object.keys(backends)) {
      let record;
      try {
        const output = execFileSync(process.execPath, [thisFile, '--child', name, backend], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'ignore'] });
        const line = output.split('\n').find((each) => each.startsWith(resultMarker));
        record = line ? JSON.parse(line.slice(resultMarker.length)) : { status: 'no result' };
      } catch (error) {
        record = { status: 'crashed', error: String(error.message ?? error).slice(0, 200) };
      }
      answers[backend] = record.answers;
      const sameAnswers = backend === 'logic-solver' && record.answers !== undefined ? { sameAnswersAsCdcl: record.answers === answers.cdcl } : {};
      process.stdout.write(`${JSON.stringify({ case: name, backend, ...record, ...sameAnswers, loadAverage: Math.round(loadavg()[0] * 10) / 10 })}\n`);
    }
  }
}

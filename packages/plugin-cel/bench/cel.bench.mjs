// Compiled evaluation per bundle, and compile time, for the spec's CEL rules and a semver rule.
// Prints one JSON line per case. Run `pnpm build` first: this imports the built package.
import { createCelConstraintEvaluator } from '../dist/index.js';

const context = {
  compile() {
    throw new Error('not used');
  },
};

const rules = {
  certified: 'properties.exists(p, p.type == "certified")',
  'certified-and-stable': 'properties.exists(p, p.type == "certified") && properties.exists(p, p.type == "stable")',
  'semver-at-least-1.0.1':
    'properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.0.1") >= 0)',
  'matches-re2': 'properties.exists(p, p.type == "olm.package" && p.value.packageName.matches("^operator-[0-9]*7$"))',
};

/** A realistic bundle: package, a few GVKs, labels, and the properties the rules look for last. */
function bundle(index) {
  return {
    properties: [
      { type: 'olm.package', value: { packageName: `operator-${index}`, version: `1.0.${index % 4}` } },
      ...Array.from({ length: 6 }, (_, gvk) => ({
        type: 'olm.gvk',
        value: { group: `g${gvk}.example.com`, version: 'v1', kind: `Kind${gvk}` },
      })),
      { type: 'olm.label', value: { label: 'team=storage' } },
      ...(index % 2 === 0 ? [{ type: 'certified', value: {} }] : []),
      ...(index % 3 === 0 ? [{ type: 'stable', value: {} }] : []),
    ],
  };
}

const bundles = Array.from({ length: 1_000 }, (_, index) => bundle(index));
const EVALUATIONS = 100_000;

/**
 * Distinct `properties` arrays: predicates remember results per array, so reusing arrays would
 * measure a WeakMap lookup. Built before timing; each evaluation is a first-time evaluation.
 */
function distinctSubjects(count) {
  return Array.from({ length: count }, (_, index) => ({ properties: bundles[index % bundles.length].properties.slice() }));
}

function measure(name, iterations, run) {
  const start = process.hrtime.bigint();
  for (let index = 0; index < iterations; index += 1) run(index);
  const elapsedNs = Number(process.hrtime.bigint() - start);
  console.log(
    JSON.stringify({ case: name, iterations, totalMs: +(elapsedNs / 1e6).toFixed(2), usPerOp: +(elapsedNs / 1e3 / iterations).toFixed(3) }),
  );
}

for (const [name, rule] of Object.entries(rules)) {
  const predicate = createCelConstraintEvaluator().compile({ rule }, context);
  for (const subject of distinctSubjects(2_000)) predicate.test(subject); // warm-up
  const subjects = distinctSubjects(EVALUATIONS);
  let matched = 0;
  measure(`evaluate/${name}`, EVALUATIONS, (index) => {
    if (predicate.test(subjects[index])) matched += 1;
  });
  if (matched === 0) throw new Error(`${name} matched nothing: the benchmark is not measuring real work`);
  measure(`evaluate-again/${name}`, EVALUATIONS, (index) => predicate.test(subjects[index]));
}

for (const [name, rule] of Object.entries(rules)) {
  // A fresh evaluator without cache, so every compile parses, checks, guards and instruments.
  const evaluator = createCelConstraintEvaluator({ cacheSize: 0 });
  for (let index = 0; index < 500; index += 1) evaluator.compile({ rule }, context); // warm-up
  measure(`compile/${name}`, 5_000, () => evaluator.compile({ rule }, context));
}

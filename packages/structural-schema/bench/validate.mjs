// Compile, validate, prune and default the real CRDs + alm-examples of a certified catalog bundle.
// Prints one JSON line per case. Run `pnpm build` first (imports ../dist).
import { readFileSync } from 'node:fs';
import { checkStructural, compileSchema } from '../dist/index.js';

const catalog = new URL('../../../../shared/catalogs/certified-operators-v4.18/eda-openshift-operator/catalog.yaml', import.meta.url);
const objects = [...readFileSync(catalog, 'utf8').matchAll(/type: olm\.bundle\.object\n\s+value:\n\s+data: (\S+)/g)].map((m) =>
  JSON.parse(Buffer.from(m[1], 'base64').toString('utf8')),
);
const schemas = objects
  .filter((o) => o.kind === 'CustomResourceDefinition')
  .flatMap((crd) => crd.spec.versions.map((v) => ({ key: `${crd.spec.group}/${v.name}/${crd.spec.names.kind}`, schema: v.schema.openAPIV3Schema })));
const examples = objects
  .filter((o) => o.kind === 'ClusterServiceVersion')
  .flatMap((csv) => JSON.parse(csv.metadata.annotations?.['alm-examples'] ?? '[]'));

function run(name, iterations, fn) {
  for (let i = 0; i < Math.min(20, iterations); i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  const ns = Number(process.hrtime.bigint() - start);
  console.log(JSON.stringify({ bench: name, iterations, meanMicros: +(ns / iterations / 1000).toFixed(2), opsPerSec: Math.round(iterations / (ns / 1e9)) }));
}

run(`checkStructural (${schemas.length} schemas)`, 50, () => schemas.forEach((s) => checkStructural(s.schema)));
run(`compileSchema (${schemas.length} schemas)`, 5, () => schemas.forEach((s) => compileSchema(s.schema)));
const compiled = new Map(schemas.map((s) => [s.key, compileSchema(s.schema)]));
const pairs = examples.map((e) => [compiled.get(`${e.apiVersion}/${e.kind}`), e]).filter(([s]) => s);
run(`validate (${pairs.length} examples)`, 2000, () => pairs.forEach(([s, e]) => s.validate(e)));
run(`prune+default+validate (${pairs.length} examples)`, 2000, () =>
  pairs.forEach(([s, e]) => s.validate(s.applyDefaults(s.prune(e).object))),
);
const invalid = pairs.map(([s, e]) => [s, { ...e, spec: 'not an object', bogus: [1, 2, 3] }]);
run(`validate invalid (${pairs.length} examples)`, 2000, () => invalid.forEach(([s, e]) => s.validate(e)));

// A hostile CRD pattern (catastrophic backtracking in a backtracking engine: 30 `a`s and a `!` took
// seconds to minutes): with RE2 semantics the time grows linearly with the value, so the 34-character
// value costs microseconds and 100,000 characters stay bounded.
const redos = compileSchema({ type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } });
for (const length of [34, 1_000, 100_000]) {
  const value = { name: `${'a'.repeat(length)}!` };
  run(`validate ReDoS pattern ^(a+)+$ (${length} a's and a !)`, length > 10_000 ? 20 : 500, () => {
    if (redos.validate(value).length === 0) throw new Error('the hostile value must not match');
  });
}

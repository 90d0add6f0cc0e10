// Validation cost of the operators.coreos.com CRDs on realistic objects (the scenario cases).
// Prints one JSON line per case. Run `pnpm build` first (imports ../dist).
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { admitResource, crds, renderCrdsYaml, validateResource } from '../dist/index.js';
import { compileSchema } from '@olm/structural-schema';

const casesDir = new URL('../test/cases/', import.meta.url);
const objects = readdirSync(casesDir)
  .sort()
  .map((name) => ({ name, object: parse(readFileSync(new URL(`${name}/input.yaml`, casesDir), 'utf8')) }));

function run(name, iterations, fn) {
  for (let i = 0; i < Math.min(50, iterations); i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  const ns = Number(process.hrtime.bigint() - start);
  console.log(JSON.stringify({ bench: name, iterations, meanMicros: +(ns / iterations / 1000).toFixed(2), opsPerSec: Math.round(iterations / (ns / 1e9)) }));
}

run('compile all CRD schemas', 5, () => crds.forEach((crd) => crd.spec.versions.forEach((v) => compileSchema(v.schema.openAPIV3Schema))));
run('renderCrdsYaml', 20, () => renderCrdsYaml());
for (const { name, object } of objects) {
  run(`validateResource ${name}`, 2000, () => validateResource(object));
  run(`admitResource ${name}`, 1000, () => admitResource(object));
}

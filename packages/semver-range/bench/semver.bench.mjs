// Micro-benchmarks of parsing and matching. Prints one JSON line per case. Run after `pnpm build`.
import { compareVersions, parseRange, parseVersion } from '../dist/index.js';

function bench(name, iterations, run) {
  for (let index = 0; index < Math.min(iterations, 1000); index += 1) run(index); // warm up
  const start = performance.now();
  for (let index = 0; index < iterations; index += 1) run(index);
  const ms = performance.now() - start;
  process.stdout.write(`${JSON.stringify({ case: name, iterations, ms: Math.round(ms), opsPerSecond: Math.round(iterations / (ms / 1000)) })}\n`);
}

const versions = Array.from({ length: 1000 }, (_, index) => `${index % 7}.${index % 13}.${index % 17}${index % 5 === 0 ? '-rc.1' : ''}`);
const parsed = versions.map((text) => parseVersion(text));
const ranges = ['>=1.0.0 <2.0.0', '1.22.8 || >=1.25.0 <1.26.0', '>=5.0.0 <5.1.2 !5.1.0-alpha1', '>= 1.18.0 < 1.25.5', '>=2.1.x <2.2.1'];
const parsedRanges = ranges.map((text) => parseRange(text));

bench('parseVersion', 200_000, (index) => parseVersion(versions[index % versions.length]));
bench('parseRange (real-catalog ranges)', 200_000, (index) => parseRange(ranges[index % ranges.length]));
bench('range.test', 1_000_000, (index) => parsedRanges[index % parsedRanges.length].test(parsed[index % parsed.length]));
bench('compareVersions', 1_000_000, (index) => compareVersions(parsed[index % parsed.length], parsed[(index * 7) % parsed.length]));

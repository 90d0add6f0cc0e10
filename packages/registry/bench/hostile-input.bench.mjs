// Hostile catalogs (issue 21, items 1 and 7): peak RSS and the longest event-loop block while loading a
// catalog whose documents each pass the alias limit but add up, and while a client reads an endless
// ListBundles stream up to its bound. Each case runs in a child process of its own (peak RSS is per
// process). Prints one JSON line per case. Run after `pnpm build`: node bench/hostile-input.bench.mjs
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expandingBundleDocument, expandingCatalogFile, expandingPackageDocument } from '@olm/registry/testing';

const self = fileURLToPath(import.meta.url);
const realCatalog = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));


/** Writes the catalog a case loads; returns its directory. */
async function writeCase(name) {
  const dir = await mkdtemp(join(tmpdir(), `olm-bench-${name}-`));
  if (name === 'aliases-one-file') {
    await writeFile(join(dir, 'catalog.yaml'), expandingCatalogFile(20));
  } else if (name === 'aliases-twenty-files') {
    await writeFile(join(dir, 'a.yaml'), expandingPackageDocument);
    for (let index = 0; index < 20; index += 1) await writeFile(join(dir, `b-${String(index).padStart(2, '0')}.yaml`), expandingBundleDocument(index));
  } else if (name === 'many-tiny-documents') {
    await writeFile(join(dir, 'many.json'), Array.from({ length: 150_000 }, (_, index) => `{"schema":"my.thing","name":"t${index}"}`).join('\n'));
  }
  return dir;
}

/** In the child: runs `work` while sampling the event loop; prints the case's JSON line. */
async function measure(name, work) {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const start = performance.now();
  const outcome = await work();
  const ms = Math.round(performance.now() - start);
  loop.disable();
  process.stdout.write(
    `${JSON.stringify({ case: name, ms, peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024), longestBlockMs: Math.round(loop.max / 1e6), ...outcome })}\n`,
  );
}

async function child(name, argument) {
  const registry = await import('../dist/index.js');
  if (name === 'grpc-endless-listbundles') {
    const client = registry.createRegistryClient(argument);
    let messages = 0;
    await measure(name, async () => {
      try {
        for await (const _ of client.listBundles()) messages += 1;
        return { messages, outcome: 'ended' };
      } catch (error) {
        return { messages, outcome: error.code };
      }
    });
    client.close();
    return;
  }
  await measure(`catalog-${name}`, async () => {
    if (name === 'real-certified') {
      const catalog = await registry.loadCatalog(argument);
      return { outcome: 'loaded', packages: catalog.packages.size };
    }
    const config = await registry.loadDeclarativeConfig(argument);
    const limit = config.errors.map((problem) => /\((max\w+);/.exec(problem.message)?.[1]).find(Boolean);
    return { outcome: config.errors.length === 0 ? 'loaded' : `refused: ${limit ?? config.errors[0].message}` };
  });
}

function runChild(name, argument) {
  return new Promise((resolve, reject) => {
    const run = spawn(process.execPath, [self, name, argument], { stdio: ['ignore', 'inherit', 'inherit'] });
    run.on('error', reject);
    run.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`case ${name} exited with ${code}`))));
  });
}

async function main() {
  await runChild('real-certified', realCatalog);
  for (const name of ['aliases-one-file', 'aliases-twenty-files', 'many-tiny-documents']) {
    const dir = await writeCase(name);
    try {
      await runChild(name, dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  // The endless server runs here, the reading client in a child: each process's figures are its own.
  const { startEndlessRegistry } = await import('../dist/testing/index.js');
  const endless = await startEndlessRegistry();
  try {
    await runChild('grpc-endless-listbundles', endless.address);
  } finally {
    await endless.stop();
  }
}

if (process.argv[2]) await child(process.argv[2], process.argv[3]);
else await main();

// Throughput of catalogd's HTTP API over loopback HTTPS on the real certified-operators catalog:
// requests/s and MB/s per case over a few seconds with a few concurrent clients, and the server's
// peak RSS (the server runs in a child process that only opens the precomputed content store).
// Prints one JSON line per case. Run `pnpm build` first: this imports the built package.
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCatalogContent, startCatalogHttpServer, writeCatalogContent } from '../dist/index.js';

const seconds = Number(process.env.SECONDS_PER_CASE ?? 3);
const concurrency = Number(process.env.CONCURRENCY ?? 4);

if (process.argv[2] === '--serve') {
  // The server process: content from disk, nothing else in memory.
  const store = await openCatalogContent(process.argv[3]);
  const server = await startCatalogHttpServer({ catalog: () => store, limits: { maxInFlight: 256, maxInFlightPerClient: 256 } });
  process.send({ url: server.url, ca: server.certificate, rssMb: process.memoryUsage().rss / 1e6 });
  process.on('message', async () => {
    const peakRssMb = process.resourceUsage().maxRSS / 1024;
    process.send({ peakRssMb, rssMb: process.memoryUsage().rss / 1e6 });
    await server.stop();
    await store.close();
    process.exit(0);
  });
} else {
  const { loadCatalog } = await import('@olm/registry');
  const catalogDir = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));
  const work = await mkdtemp(join(tmpdir(), 'catalog-http-bench-'));
  const round = (value) => Math.round(value * 10) / 10;
  try {
    const catalog = await loadCatalog(catalogDir);
    const writeStart = performance.now();
    const revision = await writeCatalogContent(join(work, 'content'), catalog);
    const writeMs = performance.now() - writeStart;
    console.log(JSON.stringify({ case: 'writeCatalogContent certified-operators-v4.18 (load excluded)', ms: round(writeMs), bytes: revision.size, objects: revision.objects, loadAverage: round(loadavg()[0]) }));

    const child = fork(fileURLToPath(import.meta.url), ['--serve', join(work, 'content')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const started = await new Promise((resolve) => child.once('message', resolve));
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: started.ca });
    const get = (path, headers) =>
      new Promise((resolve, reject) => {
        const call = request(`${started.url}${path}`, { agent, headers }, (response) => {
          let bytes = 0;
          response.on('data', (chunk) => (bytes += chunk.length));
          response.on('end', () => (response.statusCode === 200 ? resolve(bytes) : reject(new Error(`${path}: ${response.statusCode}`))));
        });
        call.on('error', reject);
        call.end();
      });
    const base = '/catalogs/certified/api/v1';
    const cases = [
      ['/all', `${base}/all`, {}],
      ['/all gzip', `${base}/all`, { 'accept-encoding': 'gzip' }],
      ['/metas?schema=olm.package', `${base}/metas?schema=olm.package`, {}],
      ['/metas?package=gpu-operator-certified', `${base}/metas?package=gpu-operator-certified`, {}],
      ['/metas?schema=olm.bundle&name=…', `${base}/metas?schema=olm.bundle&name=gpu-operator-certified.v1.10.1`, {}],
    ];
    for (const [name, path, headers] of cases) {
      let requests = 0;
      let bytes = 0;
      const start = performance.now();
      const deadline = start + seconds * 1000;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < deadline) {
            const received = await get(path, headers);
            bytes += received;
            requests += 1;
          }
        }),
      );
      const elapsed = (performance.now() - start) / 1000;
      console.log(JSON.stringify({ case: `GET ${name} certified-operators-v4.18`, concurrency, seconds: round(elapsed), requests, requestsPerSecond: round(requests / elapsed), mbPerSecond: round(bytes / 1e6 / elapsed), bytesPerResponse: Math.round(bytes / requests) }));
    }
    agent.destroy();
    child.send('stop');
    const memory = await new Promise((resolve) => child.once('message', resolve));
    console.log(JSON.stringify({ case: 'server memory over every case', catalogMb: round(revision.size / 1e6), startRssMb: round(started.rssMb), peakRssMb: round(memory.peakRssMb), endRssMb: round(memory.rssMb) }));
    await new Promise((resolve) => child.once('exit', resolve));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

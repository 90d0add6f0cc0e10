// ListBundles over the real certified-operators catalog through the gRPC server and client, over
// loopback; plus a full remote load (ListBundles + GetPackage + GetBundle per bundle).
// Prints one JSON line per case. Run `pnpm build` first: this imports the built package.
import { fileURLToPath } from 'node:url';
import { createRegistryClient, loadCatalog, loadCatalogFromRegistry, startRegistryServer } from '../dist/index.js';

const catalogDir = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));
const rounds = Number(process.env.ROUNDS ?? 5);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value) => Math.round(value * 10) / 10;

const catalog = await loadCatalog(catalogDir);
const startedAt = performance.now();
const server = await startRegistryServer({ catalog });
const indexMs = performance.now() - startedAt;
const client = createRegistryClient(server.address);
try {
  await client.checkHealth();
  const listTimes = [];
  let messages = 0;
  for (let index = 0; index < rounds; index += 1) {
    const start = performance.now();
    messages = 0;
    for await (const _bundle of client.listBundles()) messages += 1;
    listTimes.push(performance.now() - start);
  }
  console.log(JSON.stringify({ case: 'grpc ListBundles certified-operators-v4.18', messages, rounds, medianMs: round(median(listTimes)), minMs: round(Math.min(...listTimes)) }));

  const loadTimes = [];
  for (let index = 0; index < Math.min(rounds, 3); index += 1) {
    const start = performance.now();
    await loadCatalogFromRegistry(client);
    loadTimes.push(performance.now() - start);
  }
  console.log(JSON.stringify({ case: 'grpc loadCatalogFromRegistry certified-operators-v4.18', rounds: loadTimes.length, medianMs: round(median(loadTimes)) }));
  console.log(JSON.stringify({ case: 'grpc server index build certified-operators-v4.18', ms: round(indexMs) }));
} finally {
  client.close();
  await server.stop();
}

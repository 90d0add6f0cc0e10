import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Kinds } from '@olm/api';
import { channelGraph, loadCatalog, renderSvg, startRegistryServer, type RegistryServer } from '@olm/registry';
import { eventually, startTestCluster, subscription, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer, type ConsoleServer, type Json } from '../src/index.js';
import { consoleRequest, signedIn } from './console-http.js';

const examples = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));

describe('the update graph of a package, read from its catalog\'s registry', () => {
  let cluster: TestCluster;
  let registry: RegistryServer;
  let stalled: Server;
  const stalledSockets: Socket[] = [];
  let server: ConsoleServer;
  const graph = (catalog: string) =>
    consoleRequest(server.port, `/api/packages/graph?namespace=operators&package=acme-database&catalog=${catalog}&catalogNamespace=olm`, { headers: signedIn(server.port, server.token) });

  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: ['olm', 'operators'] });
    registry = await startRegistryServer({ catalog: () => loadCatalog(examples) });
    // A registry that accepts connections and never answers.
    stalled = createServer((socket) => stalledSockets.push(socket));
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const stalledAddress = `127.0.0.1:${(stalled.address() as { port: number }).port}`;
    for (const [name, address] of [['acme', registry.address], ['silent', stalledAddress]]) {
      await cluster.client.create({ ...Kinds.catalogSource, metadata: { name, namespace: 'olm' }, spec: { sourceType: 'grpc', address } } as Json);
    }
    const installed = await cluster.client.create<Json>(subscription('operators', 'acme-database', { name: 'acme-database', source: 'acme', sourceNamespace: 'olm', channel: 'stable' }) as Json);
    await cluster.client.replaceStatus({ ...installed, status: { lastUpdated: new Date().toISOString(), installedCSV: 'acme-database.v1.1.0' } } as Json);
    server = await startConsoleServer({ client: cluster.client, limits: { maxConcurrentGraphs: 1, registryDeadlineMs: 3_000 } });
  });
  afterAll(async () => {
    await server?.close();
    for (const socket of stalledSockets) socket.destroy();
    stalled?.close();
    await registry?.stop({ graceMs: 0 });
    await cluster?.stop();
  });

  it('is the picture the CLI draws from the catalog directory, with the version installed in the namespace filled', async () => {
    const reply = await graph('acme');
    expect(reply.status).toBe(200);
    const catalog = await loadCatalog(examples);
    const acme = catalog.package('acme-database')!;
    const expected = renderSvg([...acme.channels.values()].map((channel) => channelGraph(acme, channel)), { installed: 'acme-database.v1.1.0' });
    expect(reply.json()).toEqual({ svg: expected, source: 'registry', installed: 'acme-database.v1.1.0' });
  });

  it('reads at most maxConcurrentGraphs at once, and a registry that does not answer ends at the deadline with a clear error', async () => {
    const first = graph('silent');
    await eventually(async () => (stalledSockets.length > 0 ? true : undefined), { message: 'the console to dial the silent registry' });
    const second = await graph('acme');
    expect(second.status).toBe(429);
    expect(second.json().message).toBe("1 update graphs are being read (the console's maxConcurrentGraphs, 1); try again when they are drawn");
    // Past the deadline the picture would fall back to the PackageManifest, which this cluster does not serve.
    const ended = await first;
    expect(ended.status).toBe(404);
    expect(ended.json().message).toContain('the cluster does not serve this API');
    expect((await graph('acme')).status).toBe(200);
  });
});

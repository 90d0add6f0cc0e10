import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOciRegistryClient } from '../src/index.js';
import { dockerRegistryBinary, pushMinimalBundle, startDockerRegistry, type DockerRegistry, type PushedImage } from './oci-images.js';

const binary = dockerRegistryBinary();

/** A forward proxy in a few lines: CONNECT tunnels and absolute-form HTTP requests, each recorded. */
async function startProxy(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const target = new URL(request.url ?? '');
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  const tunnels = new Set<{ destroy(): void }>();
  server.on('connect', (request, socket, head) => {
    requests.push(`CONNECT ${request.url}`);
    tunnels.add(socket);
    const [host, port] = (request.url ?? '').split(':');
    const upstream = connect(Number(port), host!, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const tunnel of tunnels) tunnel.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const proxyVariables = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

describe.skipIf(!binary)('registry requests through a proxy', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-registry-proxy-'));
  let registry: DockerRegistry;
  let image: PushedImage;
  let proxy: Awaited<ReturnType<typeof startProxy>>;

  beforeAll(async () => {
    registry = await startDockerRegistry(binary!, directory);
    image = await pushMinimalBundle(registry, 'acme/proxied-bundle', 'v1', 'proxied');
    proxy = await startProxy();
  });
  afterAll(async () => {
    await proxy?.close();
    await registry?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  const proxied = () => proxy.requests.filter((request) => request.includes(registry.host));

  it('sends every request of a pull through the configured proxy', async () => {
    proxy.requests.length = 0;
    const pulled = await createOciRegistryClient({ proxy: { httpProxy: proxy.url, noProxy: '' } }).pullImage(image.reference);
    expect(pulled.digest).toBe(image.manifestDigest);
    expect(proxied().length).toBeGreaterThan(0);
    expect(proxied()[0]).toMatch(new RegExp(`^(CONNECT ${registry.host}|GET http://${registry.host}/v2/acme/proxied-bundle/manifests/v1)$`));
  });

  it('reads HTTP_PROXY and NO_PROXY from the environment, as the catalog operator runs', async () => {
    const saved = Object.fromEntries(proxyVariables.map((name) => [name, process.env[name]]));
    try {
      for (const name of proxyVariables) delete process.env[name];
      process.env['HTTP_PROXY'] = proxy.url;
      proxy.requests.length = 0;
      expect((await createOciRegistryClient().pullImage(image.reference)).digest).toBe(image.manifestDigest);
      expect(proxied().length).toBeGreaterThan(0);

      // a registry NO_PROXY names is reached directly
      process.env['NO_PROXY'] = '127.0.0.1';
      proxy.requests.length = 0;
      expect((await createOciRegistryClient().pullImage(image.reference)).digest).toBe(image.manifestDigest);
      expect(proxied()).toEqual([]);
    } finally {
      for (const name of proxyVariables) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsRegistry } from '@olm/core';
import { usageError } from '../cli-errors.js';

export interface OperationsServer {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * The endpoints a platform watches: `/metrics` (Prometheus text), `/healthz` (the process answers)
 * and `/readyz` (the controllers have started; 503 before).
 */
export async function startOperationsServer(options: {
  readonly port: number;
  readonly host?: string;
  readonly metrics: MetricsRegistry;
  readonly isReady: () => boolean;
}): Promise<OperationsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz' || path === '/livez') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    } else if (path === '/readyz') {
      const ready = options.isReady();
      response.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ok\n' : 'controllers not started\n');
    } else if (path === '/metrics') {
      options.metrics.metrics().then(
        (text) => response.writeHead(200, { 'content-type': options.metrics.contentType }).end(text),
        (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(error)}\n`),
      );
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics, /healthz or /readyz\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') return reject(error);
      reject(
        usageError(
          `cannot serve /metrics, /healthz and /readyz: ${options.host ?? '0.0.0.0'}:${options.port} is already in use; ` +
            'stop what listens there, or pass --metrics-port with a free port (--metrics-port 0 picks one)',
        ),
      );
    });
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import { createServer } from 'node:net';

/**
 * A TCP port free on 127.0.0.1 right now, for a server a test must name before it starts (a Service
 * or APIService pointing at it). Another process may take it meanwhile; prefer `port: 0` where possible.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

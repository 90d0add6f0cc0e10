import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, startTestServer } from './helpers.js';

/** Opens a TCP connection that sends an incomplete request and then nothing (a half-open client). */
async function halfOpen(server: ApiServer): Promise<{ socket: Socket; closed: Promise<string>; received: () => string }> {
  const socket = connect(server.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write('GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { socket, closed, received: () => received };
}

describe('connection limits', () => {
  const servers: ApiServer[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const server of servers.splice(0)) await server.stop();
  });

  it('pushes out the oldest half-open connections so that real clients still get answers', async () => {
    const server = await startTestServer({ connectionLimits: { maxPendingConnections: 20, headersTimeoutMs: 60_000 } });
    servers.push(server);
    const opened: Awaited<ReturnType<typeof halfOpen>>[] = [];
    for (let index = 0; index < 60; index++) opened.push(await halfOpen(server));
    sockets.push(...opened.map((entry) => entry.socket));
    // The first 40 were pushed out as newer ones arrived; the newest 20 still wait.
    await eventually(() => expect(opened.filter((entry) => entry.socket.destroyed || entry.socket.readableEnded).length).toBe(40));
    const response = await call(server, 'GET', '/api/v1/namespaces/default');
    expect(response.status).toBe(200);
  });

  it('answers 408 and closes a connection that does not finish its headers in time', async () => {
    const server = await startTestServer({ connectionLimits: { headersTimeoutMs: 300 } });
    servers.push(server);
    const { socket, closed } = await halfOpen(server);
    sockets.push(socket);
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes connections one client address opens beyond its limit, leaving the earlier ones working', async () => {
    const server = await startTestServer({ connectionLimits: { maxConnectionsPerClient: 3 } });
    servers.push(server);
    const opened: Awaited<ReturnType<typeof halfOpen>>[] = [];
    for (let index = 0; index < 5; index++) opened.push(await halfOpen(server));
    sockets.push(...opened.map((entry) => entry.socket));
    await Promise.all(opened.slice(3).map((entry) => entry.closed));
    expect(opened.slice(0, 3).every((entry) => !entry.socket.destroyed)).toBe(true);
    // Completing the first one's request gets an answer on it.
    opened[0]!.socket.write('\r\n');
    await eventually(() => expect(opened[0]!.received()).toMatch(/^HTTP\/1\.1 \d{3} /));
  });
});

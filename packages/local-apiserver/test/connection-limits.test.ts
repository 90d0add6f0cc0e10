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

  it('pushes out the oldest half-open connections once newer clients were served past them, so that real clients still get answers', async () => {
    const server = await startTestServer({ connectionLimits: { maxPendingConnections: 20, pendingGraceMs: 300, headersTimeoutMs: 60_000 } });
    servers.push(server);
    const stale: Awaited<ReturnType<typeof halfOpen>>[] = [];
    for (let index = 0; index < 20; index++) stale.push(await halfOpen(server));
    sockets.push(...stale.map((entry) => entry.socket));
    await new Promise((resolve) => setTimeout(resolve, 400));
    // A client that connected after them is served: the half-open ones are stale now.
    expect((await call(server, 'GET', '/version')).status).toBe(200);
    const young: Awaited<ReturnType<typeof halfOpen>>[] = [];
    for (let index = 0; index < 30; index++) young.push(await halfOpen(server));
    sockets.push(...young.map((entry) => entry.socket));
    // Each newcomer over the limit pushed out a stale one, answering 408; the young ones stay.
    expect(await Promise.all(stale.map((entry) => entry.closed))).toEqual(stale.map(() => 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n'));
    expect(young.every((entry) => !entry.socket.destroyed && !entry.socket.readableEnded)).toBe(true);
    const response = await call(server, 'GET', '/api/v1/namespaces/default');
    expect(response.status).toBe(200);
    // A young connection that completes its request gets an answer (403 for its Host without the port), although 30 > 20 were pending.
    young[0]!.socket.write(`Authorization: Bearer ${server.token}\r\n\r\n`);
    await eventually(() => expect(young[0]!.received()).toMatch(/^HTTP\/1\.1 403 /));
  });

  it('answers 408 and closes a connection that does not finish its headers in time', async () => {
    const server = await startTestServer({ connectionLimits: { headersTimeoutMs: 300 } });
    servers.push(server);
    const { socket, closed } = await halfOpen(server);
    sockets.push(socket);
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('answers 429 with Retry-After on connections one client address opens beyond its limit, leaving the earlier ones working', async () => {
    const server = await startTestServer({ connectionLimits: { maxConnectionsPerClient: 3 } });
    servers.push(server);
    const opened: Awaited<ReturnType<typeof halfOpen>>[] = [];
    for (let index = 0; index < 5; index++) opened.push(await halfOpen(server));
    sockets.push(...opened.map((entry) => entry.socket));
    for (const entry of opened) entry.socket.write(`Authorization: Bearer ${server.token}\r\n\r\n`);
    const refusals = await Promise.all(opened.slice(3).map((entry) => entry.closed));
    for (const text of refusals) {
      expect(text).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
      expect(text).toMatch(/\r\nRetry-After: 1\r\n/i);
      const status = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      expect(status).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 1 } });
      expect(status.message).toContain('connectionLimits.maxConnectionsPerClient');
    }
    // The first three get answers of the API (403 for their Host without the port).
    await eventually(() => expect(opened.slice(0, 3).every((entry) => /^HTTP\/1\.1 403 /.test(entry.received()))).toBe(true));
    expect(opened.slice(0, 3).every((entry) => !entry.socket.destroyed)).toBe(true);
  });
});

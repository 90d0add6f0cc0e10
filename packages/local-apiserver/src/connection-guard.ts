import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import { goJsonText } from './go-json.js';
import { statusBody } from './errors.js';

/**
 * Keeps one client's connections from locking others out, without refusing a busy client's real
 * requests. Each connection costs a file descriptor, and a process has a bounded number, so:
 * - a connection that has not yet sent complete request headers is "pending"; beyond
 *   `maxPendingConnections` of them, the oldest stale one is closed with 408. Stale means pending
 *   for `pendingGraceMs` while a connection accepted after it has already been served: a real
 *   client sends its headers at once, so the server reaches them in order, but a burst (a thousand
 *   watches opened at once) can wait seconds for a busy server, and is never pushed out for that;
 * - pending connections get `headersTimeoutMs` to send their headers (Node then answers 408);
 * - over TLS a connection counts from its completed handshake (a burst of handshakes can keep
 *   the server's CPU busy for seconds), and the handshake itself must end within `headersTimeoutMs`;
 * - one remote address holds at most `maxConnectionsPerClient` connections; a request on one
 *   beyond that is answered 429 `TooManyRequests` with `Retry-After: 1` and the connection closed.
 * Watches are not limited otherwise (kube-apiserver does not count long-running requests in flight).
 */
export interface ConnectionLimits {
  readonly maxPendingConnections: number;
  readonly pendingGraceMs: number;
  readonly maxConnectionsPerClient: number;
  readonly headersTimeoutMs: number;
}

export const defaultConnectionLimits: ConnectionLimits = {
  maxPendingConnections: 512,
  pendingGraceMs: 2_000,
  maxConnectionsPerClient: 4096,
  headersTimeoutMs: 10_000,
};

/**
 * The `createServer` options that bound how long a request may take to arrive: headers within
 * `headersTimeoutMs`, the whole request (body included) within a minute. Watches send no body, so
 * this never ends one; responses are not bounded.
 */
export function serverTimeouts(limits: ConnectionLimits): { headersTimeout: number; handshakeTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: limits.headersTimeoutMs,
    handshakeTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(60_000, limits.headersTimeoutMs),
    // Node checks both timeouts on this interval; keep it well below the headers timeout.
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Applies the connection limits to `server` and serves its requests with `handler`; returns the
 * set of open sockets (for stop()).
 */
export function guardConnections(server: Server, limits: ConnectionLimits, handler: Handler): Set<Socket> {
  const sockets = new Set<Socket>();
  // Insertion-ordered, socket → when it connected: the first entry is the oldest pending connection.
  const pending = new Map<Socket, number>();
  const perClient = new Map<string, number>();
  const overLimit = new WeakSet<Socket>();
  const connectedAt = new WeakMap<Socket, number>();
  // When the newest connection whose headers were read had connected: older pending ones were passed by.
  let newestServed = 0;

  const pushOutStale = (now: number): void => {
    for (const [socket, since] of pending) {
      if (pending.size <= limits.maxPendingConnections || now - since < limits.pendingGraceMs || since >= newestServed) return;
      pending.delete(socket);
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n', () => socket.destroy());
    }
  };

  // Every connection, so that stop() can close those still in their TLS handshake too.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on(server instanceof TlsServer ? 'secureConnection' : 'connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? '';
    const count = (perClient.get(client) ?? 0) + 1;
    perClient.set(client, count);
    if (count > limits.maxConnectionsPerClient) overLimit.add(socket);
    const now = Date.now();
    pending.set(socket, now);
    connectedAt.set(socket, now);
    if (pending.size > limits.maxPendingConnections) pushOutStale(now);
    socket.on('close', () => {
      pending.delete(socket);
      const left = (perClient.get(client) ?? 1) - 1;
      if (left > 0) perClient.set(client, left);
      else perClient.delete(client);
    });
  });
  // Complete headers arrived: the connection is a client's now, no longer pending.
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    pending.delete(request.socket);
    newestServed = Math.max(newestServed, connectedAt.get(request.socket) ?? 0);
    if (overLimit.has(request.socket)) tooManyConnections(response, limits.maxConnectionsPerClient);
    else handler(request, response);
  });
  server.on('upgrade', (request: IncomingMessage) => pending.delete(request.socket));
  return sockets;
}

function tooManyConnections(response: ServerResponse, limit: number): void {
  const message = `Too many requests: this client address already has ${limit} open connections (connectionLimits.maxConnectionsPerClient); close some or try again later`;
  const text = goJsonText(statusBody(429, 'TooManyRequests', message, { retryAfterSeconds: 1 }));
  response.shouldKeepAlive = false;
  response.writeHead(429, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Retry-After': '1', Connection: 'close' });
  response.end(text);
}

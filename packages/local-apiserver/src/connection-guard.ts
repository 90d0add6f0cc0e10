import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Keeps one client's connections from locking others out. Each connection costs a file
 * descriptor, and a process has a bounded number (often 20,000 or fewer), so:
 * - a connection that has not yet sent complete request headers is "pending"; at most
 *   `maxPendingConnections` exist, and a new one pushes out the oldest (a real client sends its
 *   headers within milliseconds of connecting, a half-open one never does);
 * - pending connections get `headersTimeoutMs` to send their headers (Node then answers 408);
 * - one remote address holds at most `maxConnectionsPerClient` connections; more are closed at once.
 */
export interface ConnectionLimits {
  readonly maxPendingConnections: number;
  readonly maxConnectionsPerClient: number;
  readonly headersTimeoutMs: number;
}

export const defaultConnectionLimits: ConnectionLimits = {
  maxPendingConnections: 512,
  maxConnectionsPerClient: 4096,
  headersTimeoutMs: 10_000,
};

/**
 * The `createServer` options that bound how long a request may take to arrive: headers within
 * `headersTimeoutMs`, the whole request (body included) within a minute. Watches send no body, so
 * this never ends one; responses are not bounded.
 */
export function serverTimeouts(limits: ConnectionLimits): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(60_000, limits.headersTimeoutMs),
    // Node checks both timeouts on this interval; keep it well below the headers timeout.
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/** Applies the connection limits to `server`; returns the set of open sockets (for stop()). */
export function guardConnections(server: Server, limits: ConnectionLimits): Set<Socket> {
  const sockets = new Set<Socket>();
  // Insertion-ordered: the first entry is the oldest pending connection.
  const pending = new Set<Socket>();
  const perClient = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? '';
    const count = (perClient.get(client) ?? 0) + 1;
    if (count > limits.maxConnectionsPerClient) {
      socket.destroy();
      return;
    }
    perClient.set(client, count);
    sockets.add(socket);
    pending.add(socket);
    if (pending.size > limits.maxPendingConnections) {
      const oldest = pending.values().next().value;
      if (oldest !== undefined) {
        pending.delete(oldest);
        oldest.destroy();
      }
    }
    socket.on('close', () => {
      sockets.delete(socket);
      pending.delete(socket);
      const left = (perClient.get(client) ?? 1) - 1;
      if (left > 0) perClient.set(client, left);
      else perClient.delete(client);
    });
  });
  // Complete headers arrived: the connection is a client's now, no longer pending.
  server.on('request', (request) => pending.delete(request.socket));
  server.on('upgrade', (request) => pending.delete(request.socket));
  return sockets;
}

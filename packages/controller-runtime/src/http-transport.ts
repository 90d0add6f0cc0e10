import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ServerConfiguration } from '@kubernetes/client-node';
import { describeError } from '@olm/core';

/** One keep-alive agent per client and its views, rebuilt when the TLS options it was made from change. */
export interface ConnectionPool {
  keepAlive?: { readonly agent: HttpAgent; readonly fingerprint: string };
}

/**
 * client-node builds a new agent for every request, so no connection is ever reused (a new TCP and
 * TLS handshake each time). Swap in one keep-alive agent with the same TLS options; it is rebuilt
 * whenever those options change (rotated client certificates). Proxy agents are left alone.
 */
export function reuseConnections(pool: ConnectionPool, context: { getAgent(): unknown; setAgent(agent: HttpAgent | HttpsAgent): void }): void {
  const created = context.getAgent();
  if (!(created instanceof HttpAgent) || created.constructor !== HttpAgent && created.constructor !== HttpsAgent) return;
  const options = (created as HttpAgent & { options: Record<string, unknown> }).options;
  const fingerprint = [
    created.constructor === HttpsAgent,
    options['ca'],
    options['cert'],
    options['key'],
    options['pfx'],
    options['passphrase'],
    options['rejectUnauthorized'],
    options['servername'],
  ]
    .map(fingerprintPart)
    .join('\u0000');
  if (pool.keepAlive?.fingerprint !== fingerprint) {
    pool.keepAlive?.agent.destroy();
    const keepAliveOptions = { ...options, keepAlive: true, maxSockets: 32 };
    const agent = created.constructor === HttpsAgent ? new HttpsAgent(keepAliveOptions) : new HttpAgent(keepAliveOptions);
    pool.keepAlive = { agent, fingerprint };
  }
  context.setAgent(pool.keepAlive.agent);
}

/**
 * client-node reads the kubeconfig's CA and client certificate into new Buffers for every request:
 * base64 is a native copy, where JSON.stringify of a Buffer spelt out every byte as a number (2 % of
 * a busy controller's CPU).
 */
function fingerprintPart(value: unknown): string {
  if (Buffer.isBuffer(value)) return `b:${value.toString('base64')}`;
  if (Array.isArray(value)) return `a:${value.map(fingerprintPart).join(',')}`;
  if (typeof value === 'object' && value !== null) return `o:${Object.entries(value).map(([key, part]) => `${key}=${fingerprintPart(part)}`).join(',')}`;
  return `v:${String(value)}`;
}

export type RequestContext = ReturnType<ServerConfiguration<Record<string, string>>['makeRequestContext']>;

/**
 * Sends a prepared request with node's http(s) client and reads the whole body as text. client-node's
 * own sender (node-fetch, a Headers object sorted on every read, a response wrapper) allocates several
 * times as much per request, and a controller sends thousands: it was most of the garbage that made
 * the heap grow under load.
 */
export function send(context: RequestContext, extraHeaders: Readonly<Record<string, string | string[]>>): Promise<{ status: number; warningHeader: string | undefined; text: string }> {
  const body = context.getBody() as string | undefined;
  // An array value is sent as one header line per value (repeated Impersonate-Group).
  const headers: Record<string, string | string[]> = { ...context.getHeaders(), ...extraHeaders };
  if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
  const url = new URL(context.getUrl());
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: context.getHttpMethod(), headers, agent: context.getAgent() as HttpAgent | undefined, signal: context.getSignal() as AbortSignal | undefined },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => resolve({ status: response.statusCode ?? 0, warningHeader: headerText(response.headers, 'warning'), text: Buffer.concat(chunks).toString('utf8') }));
        // A connection lost mid-body ends without 'end' (promise already settled otherwise).
        response.on('close', () => {
          if (!response.complete) reject(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function headerText(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function isStaleConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/i.test(describeError(error));
}

export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

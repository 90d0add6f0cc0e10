import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../src/index.js';
import { selfSignedCertificate, type TlsMaterial } from '../src/tls.js';

/** Shared test plumbing: a server on a random port and raw HTTP(S) helpers (as the admin, over loopback). */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

let certificate: TlsMaterial | undefined;

/**
 * `tls: true` serves HTTPS with one certificate per test process (one openssl run). kubectl needs
 * HTTPS: client-go sends credentials only over TLS.
 */
export async function startTestServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const tls = options.tls === true ? (certificate ??= selfSignedCertificate()) : options.tls;
  return startApiServer({ port: 0, deploymentRolloutDelayMs: 20, ...options, ...(tls !== undefined ? { tls } : {}) });
}

/** Sends a request to the server (trusting its certificate), as the admin unless `headers` carry an `Authorization`. */
export function send(server: ApiServer, method: string, path: string, headers: Record<string, string | string[]>, body?: string | Buffer, signal?: AbortSignal): Promise<IncomingMessage> {
  const allHeaders: Record<string, string | string[] | number> = { Authorization: `Bearer ${server.token}`, ...headers };
  // Node sends no body on DELETE without a length.
  if (body !== undefined) allHeaders['Content-Length'] = Buffer.byteLength(body);
  const options: RequestOptions & { ca?: string } = { method, headers: allHeaders, ...(signal ? { signal } : {}) };
  if (server.caCertificate !== undefined) options.ca = server.caCertificate;
  const requestFunction = server.url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = requestFunction(`${server.url}${path}`, options, resolve);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export async function call(server: ApiServer, method: string, path: string, body?: unknown, headers: Record<string, string | string[]> = {}): Promise<RawResponse> {
  const allHeaders: Record<string, string | string[]> = { Accept: 'application/json', ...headers };
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    allHeaders['Content-Type'] ??= 'application/json';
  }
  const response = await send(server, method, path, allHeaders, payload);
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const responseHeaders = new Headers();
  for (let index = 0; index + 1 < response.rawHeaders.length; index += 2) responseHeaders.append(response.rawHeaders[index] ?? '', response.rawHeaders[index + 1] ?? '');
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode ?? 0, headers: responseHeaders, body: parsed, text };
}

export interface WatchEvent {
  type: string;
  object: any;
}

/** Opens a watch and collects its events until `stop()` (or the server closes the stream). */
export function openWatch(server: ApiServer, path: string, headers: Record<string, string> = {}): { events: WatchEvent[]; done: Promise<void>; stop(): void; waitFor(count: number, timeoutMs?: number): Promise<WatchEvent[]> } {
  const controller = new AbortController();
  const events: WatchEvent[] = [];
  const waiters: (() => void)[] = [];
  const done = (async () => {
    try {
      const response = await send(server, 'GET', path, headers, undefined, controller.signal);
      let buffer = '';
      for await (const chunk of response) {
        buffer += (chunk as Buffer).toString('utf8');
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim() !== '') events.push(JSON.parse(line) as WatchEvent);
          for (const waiter of waiters.splice(0)) waiter();
          newline = buffer.indexOf('\n');
        }
      }
    } catch (error) {
      if (!(error instanceof Error && (error.name === 'AbortError' || (error as { code?: string }).code === 'ECONNRESET'))) throw error;
    } finally {
      for (const waiter of waiters.splice(0)) waiter();
    }
  })();
  let closed = false;
  void done.finally(() => {
    closed = true;
  });
  return {
    events,
    done,
    stop: () => controller.abort(),
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count) {
        if (closed || Date.now() > deadline) throw new Error(`expected ${count} watch events, got ${events.length}: ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return events;
    },
  };
}

export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw lastError;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['olm'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A widget for tests.',
            properties: {
              spec: {
                type: 'object',
                description: 'The desired widget.',
                properties: {
                  size: { type: 'integer', description: 'How big.' },
                  color: { type: 'string', default: 'blue' },
                  parts: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, count: { type: 'integer' } } },
                  },
                },
              },
              status: {
                type: 'object',
                properties: {
                  phase: { type: 'string' },
                  conditions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } } },
                },
              },
            },
          },
        },
      },
      {
        name: 'v1alpha1',
        served: true,
        storage: false,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

export async function installWidgetCrd(server: ApiServer): Promise<void> {
  const response = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd);
  if (response.status !== 201) throw new Error(`CRD create failed: ${response.text}`);
}

/** The real client's configuration for a test server (its kubeconfig: URL, CA and admin token). */
export function kubeConfigOf(server: ApiServer): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(server.kubeconfig);
  return config;
}

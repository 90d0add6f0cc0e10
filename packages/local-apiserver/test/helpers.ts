import { startApiServer, type ApiServer, type ApiServerOptions } from '../src/index.js';

/** Shared test plumbing: a server on a random port and raw HTTP helpers (fetch over loopback). */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function startTestServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  return startApiServer({ port: 0, deploymentRolloutDelayMs: 20, ...options });
}

export async function call(server: ApiServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const init: RequestInit = { method, headers: { Accept: 'application/json', ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export interface WatchEvent {
  type: string;
  object: any;
}

/** Opens a watch and collects its events until `stop()` (or the server closes the stream). */
export function openWatch(server: ApiServer, path: string): { events: WatchEvent[]; done: Promise<void>; stop(): void; waitFor(count: number, timeoutMs?: number): Promise<WatchEvent[]> } {
  const controller = new AbortController();
  const events: WatchEvent[] = [];
  const waiters: (() => void)[] = [];
  const done = (async () => {
    try {
      const response = await fetch(`${server.url}${path}`, { signal: controller.signal });
      const reader = response.body?.getReader();
      if (!reader) return;
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += decoder.decode(value, { stream: true });
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
      if (!(error instanceof Error && error.name === 'AbortError')) throw error;
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

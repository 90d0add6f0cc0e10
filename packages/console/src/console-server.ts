import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeClient } from '@olm/controller-runtime';
import { apiRoutes, namespaceOf, type Route } from './api-routes.js';
import { problemOf, readJsonBody, sendBody, sendJson, sendProblem } from './http-replies.js';
import { InstallFlow } from './install-flow.js';
import { newConsoleToken, RequestGuard } from './request-guard.js';
import { indexHtml, loadStaticAssets, refusalHtml } from './static-assets.js';
import { WatchRelay } from './watch-relay.js';

/** The console's bounds; each has an `olm console` flag of the same name in kebab case. */
export interface ConsoleLimits {
  /** Largest JSON request body (bytes). */
  readonly maxBodyBytes: number;
  /** Live-update streams open at once, across tabs. */
  readonly maxEventStreams: number;
  /** Bytes queued for one slow live-update stream before it is closed. */
  readonly maxStreamBufferedBytes: number;
  /** Installs started and neither confirmed nor cancelled. */
  readonly maxPendingInstalls: number;
  /** Deadline of the registry calls that read a package's update graph (ms). */
  readonly registryDeadlineMs: number;
  /** Most ListBundles messages / bytes read from a catalog's registry for one graph. */
  readonly registryMaxMessages: number;
  readonly registryMaxBytes: number;
  /** Update graphs read at once (in aggregate, the registry bytes limit times this). */
  readonly maxConcurrentGraphs: number;
}

export const defaultConsoleLimits: ConsoleLimits = Object.freeze({
  maxBodyBytes: 64 * 1024,
  maxEventStreams: 16,
  maxStreamBufferedBytes: 1024 * 1024,
  maxPendingInstalls: 32,
  registryDeadlineMs: 10_000,
  registryMaxMessages: 20_000,
  registryMaxBytes: 64 * 1024 * 1024,
  maxConcurrentGraphs: 2,
});

export interface ConsoleServerOptions {
  /** The user's own client (their kubeconfig): every read and write is theirs. */
  readonly client: KubeClient;
  /** Default 0: a free port. The server listens on 127.0.0.1 only. */
  readonly port?: number;
  /** Default: 32 random bytes per run. */
  readonly token?: string;
  readonly defaultNamespace?: string;
  /** The kubeconfig context, shown on the page. */
  readonly context?: string;
  readonly limits?: Partial<ConsoleLimits>;
}

export interface ConsoleServer {
  /** The URL to open: it carries the token, which the page then keeps in a cookie. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const limits = { ...defaultConsoleLimits, ...options.limits };
  const token = options.token ?? newConsoleToken();
  const assets = loadStaticAssets();
  const relay = new WatchRelay(options.client, { maxStreams: limits.maxEventStreams, maxBufferedBytes: limits.maxStreamBufferedBytes });
  const routes = apiRoutes({
    defaultNamespace: options.defaultNamespace ?? 'operators',
    context: options.context ?? '',
    server: options.client.server,
    installs: new InstallFlow(limits.maxPendingInstalls),
    maxConcurrentGraphs: limits.maxConcurrentGraphs,
    graphLimits: { registryDeadlineMs: limits.registryDeadlineMs, registryMaxMessages: limits.registryMaxMessages, registryMaxBytes: limits.registryMaxBytes },
  });
  let guard: RequestGuard | undefined;
  const server = createServer((request, response) => {
    void handle(request, response, { guard: guard!, routes, relay, assets, client: options.client, maxBodyBytes: limits.maxBodyBytes }).catch((error: unknown) => sendProblem(response, problemOf(error)));
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  guard = new RequestGuard(port, token);
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Handling {
  readonly guard: RequestGuard;
  readonly routes: ReadonlyMap<string, Route>;
  readonly relay: WatchRelay;
  readonly assets: ReturnType<typeof loadStaticAssets>;
  readonly client: KubeClient;
  readonly maxBodyBytes: number;
}

async function handle(request: IncomingMessage, response: ServerResponse, handling: Handling): Promise<void> {
  const { guard } = handling;
  const url = new URL(request.url ?? '/', 'http://console.invalid');
  const refused = guard.checkOrigin(request);
  if (refused) return url.pathname.startsWith('/api/') ? sendJson(response, refused.status, refused) : sendBody(response, refused.status, 'text/html; charset=utf-8', refusalHtml(refused.message));
  const asset = handling.assets.files.get(url.pathname);
  if (request.method === 'GET' && asset) return sendBody(response, 200, asset.type, asset.body);
  if (request.method === 'GET' && url.pathname === '/') return page(request, response, url, handling);
  // Browsers ask for it on their own; there is none (nothing is fetched from elsewhere either).
  if (url.pathname === '/favicon.ico') return void response.writeHead(204).end();
  if (!url.pathname.startsWith('/api/')) return sendJson(response, 404, { status: 404, reason: 'NotFound', message: `no page ${url.pathname}` });
  if (!guard.hasToken(request)) {
    const refusal = guard.tokenRefusal();
    return sendJson(response, refusal.status, refusal);
  }
  if (request.method === 'GET' && url.pathname === '/api/events') return handling.relay.stream(response, namespaceOf(url.searchParams));
  const route = handling.routes.get(`${request.method} ${url.pathname}`);
  if (!route) return sendJson(response, 404, { status: 404, reason: 'NotFound', message: `no API ${request.method} ${url.pathname}` });
  const body = request.method === 'POST' ? await readJsonBody(request, handling.maxBodyBytes) : {};
  sendJson(response, 200, await route({ client: handling.client, query: url.searchParams, body }));
}

/** `/?token=…` sets the cookie and redirects to `/` (so the token leaves the address bar and history); `/` needs the cookie. */
function page(request: IncomingMessage, response: ServerResponse, url: URL, { guard, assets }: Handling): void {
  if (url.searchParams.has('token')) {
    if (!guard.matches(url.searchParams.get('token'))) return sendBody(response, 401, 'text/html; charset=utf-8', refusalHtml(guard.tokenRefusal().message));
    response.writeHead(303, { Location: '/', 'Set-Cookie': guard.tokenCookieHeader(), 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    return void response.end();
  }
  if (!guard.hasToken(request)) return sendBody(response, 401, 'text/html; charset=utf-8', refusalHtml(guard.tokenRefusal().message));
  if (assets.missing) return sendBody(response, 500, 'text/html; charset=utf-8', refusalHtml(assets.missing));
  sendBody(response, 200, 'text/html; charset=utf-8', indexHtml());
}

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { MetasQuery, Section } from './catalog-index.js';
import { checkPreconditions } from './conditional-request.js';
import type { CatalogContentStore } from './content-store.js';
import { RequestLimiter, type RequestLimits } from './request-limiter.js';

export interface CatalogHttpLimits extends RequestLimits {
  /** Longest request target (path and query) in bytes; longer ones get 414. */
  readonly maxUrlBytes: number;
  /** Seconds a refused (429) client is told to wait (`Retry-After`). */
  readonly retryAfterSeconds: number;
}

export const defaultCatalogHttpLimits: CatalogHttpLimits = { maxUrlBytes: 4096, maxInFlight: 64, maxInFlightPerClient: 8, retryAfterSeconds: 1 };

export interface CatalogHttpHandlerOptions {
  /** The content of a catalog by name (`/catalogs/<name>/…`), undefined when there is none (404). */
  readonly catalog: (name: string) => CatalogContentStore | undefined;
  /** The path catalog names hang from; default `/catalogs`, as catalogd's `status.urls.base`. */
  readonly basePath?: string;
  readonly limits?: Partial<CatalogHttpLimits>;
  /** How the limits are named to the user in errors (`--http-max-in-flight` for the CLI); default the option names. */
  readonly limitNames?: Partial<Record<keyof CatalogHttpLimits, string>>;
}

export type CatalogHttpHandler = (request: IncomingMessage, response: ServerResponse) => void;

const metasParameters = new Set(['schema', 'package', 'name']);

/** As Go's `http.Error`: a plain-text body of the message and a newline. */
function sendError(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...headers });
  response.end(`${message}\n`);
}

function acceptsGzip(request: IncomingMessage): boolean {
  const header = request.headers['accept-encoding'];
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding, ...parameters] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const quality = parameters.map((parameter) => /^\s*q=([\d.]+)\s*$/.exec(parameter)?.[1]).find((value) => value !== undefined);
    return quality === undefined || Number(quality) > 0;
  });
}

interface Route {
  readonly catalog: string;
  readonly endpoint: 'all' | 'metas';
}

function route(pathname: string, basePath: string): Route | undefined {
  if (!pathname.startsWith(`${basePath}/`)) return undefined;
  const match = /^([^/]+)\/api\/v1\/(all|metas)$/.exec(pathname.slice(basePath.length + 1));
  if (match === null) return undefined;
  try {
    return { catalog: decodeURIComponent(match[1]!), endpoint: match[2] as Route['endpoint'] };
  } catch {
    return undefined;
  }
}

/**
 * catalogd's HTTP API: `GET|HEAD <base>/<catalog>/api/v1/all` (the whole catalog as JSON Lines)
 * and `<base>/<catalog>/api/v1/metas?schema=&package=&name=` (the objects matching every filter
 * given), with catalogd's status codes and bodies; plus entity tags, gzip and request limits.
 */
export function createCatalogHttpHandler(options: CatalogHttpHandlerOptions): CatalogHttpHandler {
  const limits = { ...defaultCatalogHttpLimits, ...options.limits };
  const limitName = (limit: keyof CatalogHttpLimits): string => options.limitNames?.[limit] ?? limit;
  const basePath = (options.basePath ?? '/catalogs').replace(/\/+$/, '');
  const limiter = new RequestLimiter(limits);

  return (request, response) => {
    const target = request.url ?? '/';
    if (Buffer.byteLength(target) > limits.maxUrlBytes) {
      sendError(response, 414, `414 URI Too Long: the request target has ${Buffer.byteLength(target)} bytes, the limit is ${limits.maxUrlBytes} (${limitName('maxUrlBytes')})`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendError(response, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
      return;
    }
    // URL.parse, not new URL: a target that is no URL (`http://[`) must not throw out of the handler.
    const url = URL.parse(target, 'http://catalog.invalid');
    if (url === null) {
      sendError(response, 400, '400 Bad Request');
      return;
    }
    const found = route(url.pathname, basePath);
    if (found === undefined) {
      sendError(response, 404, '404 page not found');
      return;
    }
    const client = request.socket.remoteAddress ?? 'unknown';
    const admission = limiter.admit(client);
    if (!admission.admitted) {
      const limit = admission.limit;
      const scope = limit === 'maxInFlightPerClient' ? `from ${client}` : 'in total';
      sendError(response, 429, `429 Too Many Requests: ${limits[limit]} requests already in flight ${scope} (${limitName(limit)}); retry after ${limits.retryAfterSeconds}s`, {
        'Retry-After': String(limits.retryAfterSeconds),
      });
      return;
    }
    response.once('close', admission.release);
    serve(request, response, found, url.searchParams, options.catalog).catch(() => response.destroy());
  };
}

async function serve(request: IncomingMessage, response: ServerResponse, found: Route, parameters: URLSearchParams, catalogs: CatalogHttpHandlerOptions['catalog']): Promise<void> {
  let query: MetasQuery | undefined;
  if (found.endpoint === 'metas') {
    // catalogd checks the parameters before it looks the catalog up.
    for (const key of parameters.keys()) {
      if (!metasParameters.has(key)) return sendError(response, 400, '400 Bad Request');
    }
    query = { schema: parameters.get('schema') ?? '', package: parameters.get('package') ?? '', name: parameters.get('name') ?? '' };
    if (query.schema === '' && query.package === '' && query.name === '') query = undefined;
  }
  const store = catalogs(found.catalog);
  if (store === undefined) return sendError(response, 404, '404 Not Found');

  const { revision } = store;
  const identity = query === undefined ? revision.etag : `"${revision.etag.slice(1, -1)}-${createHash('sha256').update(`${query.schema}\0${query.package}\0${query.name}`).digest('hex').slice(0, 16)}"`;
  const gzipped = `${identity.slice(0, -1)}-gzip"`;
  const gzip = acceptsGzip(request);
  const headers: Record<string, string> = {
    'Last-Modified': revision.lastModified.toUTCString(),
    ETag: gzip ? gzipped : identity,
    Vary: 'Accept-Encoding',
  };
  const precondition = checkPreconditions(request.headers, [identity, gzipped], revision.lastModified);
  if (precondition === 'failed') return sendError(response, 412, 'Precondition Failed');
  if (precondition === 'not-modified') {
    response.writeHead(304, { ETag: headers.ETag!, Vary: headers.Vary! });
    response.end();
    return;
  }
  const sections: Section[] | undefined = query === undefined ? undefined : store.index.sections(query);
  headers['Content-Type'] = 'application/jsonl';
  if (gzip) headers['Content-Encoding'] = 'gzip';
  // The whole catalog was compressed once at write; a filtered answer is compressed as it streams.
  if (gzip && sections === undefined) headers['Content-Length'] = String(revision.gzipSize);
  if (!gzip) headers['Content-Length'] = String(sections === undefined ? revision.size : sections.reduce((sum, section) => sum + section.length, 0));
  response.writeHead(200, headers);
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  if (gzip && sections === undefined) await pipeline(Readable.from(store.readGzip()), response);
  else if (gzip) await pipeline(Readable.from(store.read(sections)), createGzip(), response);
  else await pipeline(Readable.from(store.read(sections)), response);
}

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Catalog } from '@olm/registry';
import { usageError } from '../cli-errors.js';

export interface CatalogHttpOptions {
  readonly http?: string;
  readonly httpCatalogName?: string;
  readonly httpPlain?: boolean;
  readonly httpTlsCert?: string;
  readonly httpTlsKey?: string;
  readonly httpMaxInFlight?: string;
  readonly httpMaxInFlightPerClient?: string;
}

/** The `--http*` options of `olm catalog serve`: catalogd's HTTP API next to the gRPC one. */
export function addCatalogHttpOptions(command: Command): Command {
  return command
    .option('--http <port>', "also serve catalogd's HTTP API (/catalogs/NAME/api/v1/all and /api/v1/metas) over HTTPS on this port (0 picks a free one), on --host")
    .option('--http-catalog-name <name>', 'the NAME in /catalogs/NAME/ (default: the directory name)')
    .option('--http-tls-cert <file>', 'PEM certificate for the HTTP API (default: a self-signed one made at start)')
    .option('--http-tls-key <file>', 'PEM private key of --http-tls-cert')
    .option('--http-plain', 'serve the HTTP API over plain HTTP instead of HTTPS')
    .option('--http-max-in-flight <n>', 'HTTP requests answered at once in total; more get 429 with Retry-After', '64')
    .option('--http-max-in-flight-per-client <n>', 'HTTP requests answered at once per client address; more get 429 with Retry-After', '8');
}

export interface RunningCatalogHttp {
  /** The `/api/v1/all` URL. */
  readonly url: string;
  stop(): Promise<void>;
}

function positiveInteger(flag: string, value: string): number {
  if (!/^[1-9]\d{0,5}$/.test(value)) throw usageError(`${flag} must be an integer from 1 to 999999, got "${value}"`);
  return Number(value);
}

async function certificateFrom(options: CatalogHttpOptions): Promise<{ cert: string; key: string } | 'self-signed' | false> {
  if (options.httpPlain === true) {
    if (options.httpTlsCert !== undefined || options.httpTlsKey !== undefined) throw usageError('--http-plain serves without TLS: drop --http-tls-cert/--http-tls-key, or --http-plain');
    return false;
  }
  if ((options.httpTlsCert === undefined) !== (options.httpTlsKey === undefined)) throw usageError('--http-tls-cert and --http-tls-key go together: pass both, or neither for a self-signed certificate');
  if (options.httpTlsCert === undefined || options.httpTlsKey === undefined) return 'self-signed';
  return { cert: await readFile(options.httpTlsCert, 'utf8'), key: await readFile(options.httpTlsKey, 'utf8') };
}

/**
 * Precomputes the loaded catalog's content into a temporary directory (removed on stop) and serves
 * it; undefined when `--http` was not given.
 */
export async function startCatalogHttp(dir: string, catalog: Catalog, options: CatalogHttpOptions, host: string): Promise<RunningCatalogHttp | undefined> {
  if (options.http === undefined) return undefined;
  const port = Number(options.http);
  if (!/^\d+$/.test(options.http) || port > 65535) throw usageError(`--http must be an integer from 0 to 65535, got "${options.http}"`);
  const name = options.httpCatalogName ?? basename(resolve(dir));
  if (name === '' || name.includes('/')) throw usageError(`--http-catalog-name must be one path segment, got "${name}"`);
  const tls = await certificateFrom(options);
  const limits = { maxInFlight: positiveInteger('--http-max-in-flight', options.httpMaxInFlight ?? '64'), maxInFlightPerClient: positiveInteger('--http-max-in-flight-per-client', options.httpMaxInFlightPerClient ?? '8') };
  const { openCatalogContent, startCatalogHttpServer, writeCatalogContent } = await import('@olm/catalog-http');
  const work = await mkdtemp(join(tmpdir(), 'olm-catalog-http-'));
  try {
    await writeCatalogContent(join(work, 'content'), catalog);
    const store = await openCatalogContent(join(work, 'content'));
    const server = await startCatalogHttpServer({
      catalog: (requested) => (requested === name ? store : undefined),
      host,
      port,
      tls,
      limits,
      limitNames: { maxInFlight: '--http-max-in-flight', maxInFlightPerClient: '--http-max-in-flight-per-client' },
    });
    return {
      url: `${server.url}/catalogs/${encodeURIComponent(name)}/api/v1/all`,
      stop: async () => {
        await server.stop();
        await store.close();
        await rm(work, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}

import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { OlmError, describeError } from '@olm/core';
import { formatGoDuration } from '@olm/go-format';
import { loadCatalog, type Catalog, type CatalogLimits } from '@olm/registry';
import { ClusterExtensionErrorCodes } from './errors.js';

/** Bounds of what is read from catalogd's HTTP API. */
export interface CatalogContentLimits {
  /** Largest `/api/v1/all` answer of one catalog. Default 256 MiB (the registry's `maxCatalogDecodedBytes`). */
  readonly maxCatalogBytes: number;
  /** Bytes of catalog answers kept in the cache, all catalogs together; the least recently used go first. Default 1 GiB. */
  readonly maxCachedBytes: number;
  /** How long one download may take. Default 2 minutes. */
  readonly requestTimeoutMs: number;
}

export const defaultCatalogContentLimits: CatalogContentLimits = { maxCatalogBytes: 256 * 1024 * 1024, maxCachedBytes: 1024 * 1024 * 1024, requestTimeoutMs: 120_000 };

/** A served ClusterCatalog, as its status names its content. */
export interface ServedCatalog {
  readonly name: string;
  readonly baseUrl: string;
  /** `status.resolvedSource.image.ref` and `status.lastUnpacked`: the content changes only when one does. */
  readonly contentKey: string;
}

interface Cached {
  readonly key: string;
  readonly bytes: number;
  readonly catalog: Catalog;
}

/**
 * Catalog content read from catalogd's HTTP API (`<status.urls.base>/api/v1/all`) over HTTPS trusting
 * `ca`, loaded with the registry's bounded loader, and kept per catalog until its resolved source or
 * unpack time changes: a reconcile does not download again. Concurrent reads of one catalog share one
 * download.
 */
export class CatalogContentCache {
  readonly #cached = new Map<string, Cached>();
  readonly #inFlight = new Map<string, Promise<Catalog>>();
  readonly #limits: CatalogContentLimits;

  constructor(
    private readonly options: { readonly ca?: string | (() => string | undefined); readonly limits?: Partial<CatalogContentLimits>; readonly catalogLimits?: Partial<CatalogLimits> } = {},
  ) {
    this.#limits = { ...defaultCatalogContentLimits, ...options.limits };
  }

  /** The catalog's content, from the cache when its key is unchanged. */
  async get(served: ServedCatalog, signal?: AbortSignal): Promise<Catalog> {
    const cached = this.#cached.get(served.name);
    if (cached?.key === served.contentKey) {
      this.#cached.delete(served.name);
      this.#cached.set(served.name, cached); // most recently used last
      return cached.catalog;
    }
    const flightKey = `${served.name}\u0000${served.contentKey}`;
    let flight = this.#inFlight.get(flightKey);
    if (!flight) {
      flight = this.#download(served, signal).finally(() => this.#inFlight.delete(flightKey));
      this.#inFlight.set(flightKey, flight);
    }
    return flight;
  }

  /** Drops catalogs no longer served. */
  retain(names: ReadonlySet<string>): void {
    for (const name of this.#cached.keys()) if (!names.has(name)) this.#cached.delete(name);
  }

  async #download(served: ServedCatalog, signal: AbortSignal | undefined): Promise<Catalog> {
    const directory = await mkdtemp(join(tmpdir(), 'olm-cluster-extension-catalog-'));
    try {
      const bytes = await this.#fetchTo(`${served.baseUrl.replace(/\/+$/, '')}/api/v1/all`, join(directory, 'catalog.json'), served.name, signal);
      const catalog = await loadCatalog(directory, this.options.catalogLimits ? { limits: this.options.catalogLimits } : {});
      this.#remember(served, { key: served.contentKey, bytes, catalog });
      return catalog;
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  #remember(served: ServedCatalog, entry: Cached): void {
    this.#cached.delete(served.name);
    let total = entry.bytes;
    for (const cached of this.#cached.values()) total += cached.bytes;
    for (const [name, cached] of this.#cached) {
      if (total <= this.#limits.maxCachedBytes) break;
      this.#cached.delete(name);
      total -= cached.bytes;
    }
    if (total <= this.#limits.maxCachedBytes) this.#cached.set(served.name, entry);
  }

  /** Streams the answer to `file`, refusing more than `maxCatalogBytes`; returns its size. */
  async #fetchTo(url: string, file: string, catalogName: string, signal: AbortSignal | undefined): Promise<number> {
    const { maxCatalogBytes, requestTimeoutMs } = this.#limits;
    const ca = typeof this.options.ca === 'function' ? this.options.ca() : this.options.ca;
    const deadline = AbortSignal.timeout(requestTimeoutMs);
    const aborted = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const where = `ClusterCatalog ${JSON.stringify(catalogName)} content at ${url}`;
    try {
      const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
        const call = request(new URL(url), { ...(ca ? { ca } : {}), signal: aborted, headers: { accept: 'application/jsonl' } }, resolve);
        call.on('error', reject);
        call.end();
      });
      if (response.statusCode !== 200) {
        response.resume();
        throw new OlmError(ClusterExtensionErrorCodes.catalogUnavailable, `reading ${where}: HTTP ${response.statusCode}`);
      }
      const declared = Number(response.headers['content-length'] ?? NaN);
      if (declared > maxCatalogBytes) {
        response.destroy();
        throw tooLarge(where, declared, maxCatalogBytes);
      }
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxCatalogBytes) response.destroy(tooLarge(where, bytes, maxCatalogBytes));
      });
      await pipeline(response, createWriteStream(file));
      return bytes;
    } catch (error) {
      if (error instanceof OlmError) throw error;
      const why = deadline.aborted ? `took longer than ${formatGoDuration(requestTimeoutMs)}; raise the controller's option catalogContentLimits.requestTimeoutMs` : describeError(error);
      throw new OlmError(ClusterExtensionErrorCodes.catalogUnavailable, `reading ${where}: ${why}`, { cause: error });
    }
  }
}

function tooLarge(where: string, bytes: number, limit: number): OlmError {
  return new OlmError(
    ClusterExtensionErrorCodes.catalogTooLarge,
    `reading ${where}: more than ${limit} bytes (at least ${bytes}); raise the controller's option catalogContentLimits.maxCatalogBytes`,
  );
}

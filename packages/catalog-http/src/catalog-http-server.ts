import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate, type ServingCertificate } from '@olm/serving-certificate';
import { createCatalogHttpHandler, type CatalogHttpHandlerOptions } from './catalog-http-handler.js';

export interface CatalogHttpServerOptions extends CatalogHttpHandlerOptions {
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Default `127.0.0.1`; `0.0.0.0` for every interface. */
  readonly host?: string;
  /**
   * The serving certificate; `'self-signed'` (default) makes one for localhost, 127.0.0.1, ::1
   * and `host`; `false` serves plain HTTP.
   */
  readonly tls?: ServingCertificate | 'self-signed' | false;
  /** A connection idle this long (a client that stopped reading) is closed; default 30 s. */
  readonly idleTimeoutMs?: number;
  /** Connections accepted at once; default 512. */
  readonly maxConnections?: number;
}

export interface CatalogHttpServer {
  /** `https://host:port` (or `http://`), without the base path. */
  readonly url: string;
  readonly port: number;
  /** The PEM certificate served (a client's CA for a self-signed one); undefined over plain HTTP. */
  readonly certificate?: string;
  stop(): Promise<void>;
}

function certificateHosts(host: string): string[] {
  const hosts = ['localhost', '127.0.0.1', '::1'];
  if (host !== '0.0.0.0' && host !== '::' && !hosts.includes(host)) hosts.push(host);
  return hosts;
}

/** Serves catalogd's HTTP API (see `createCatalogHttpHandler`) over HTTPS, or HTTP when `tls: false`. */
export async function startCatalogHttpServer(options: CatalogHttpServerOptions): Promise<CatalogHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const tls = options.tls ?? 'self-signed';
  const certificate = tls === false ? undefined : tls === 'self-signed' ? await selfSignedCertificate({ hosts: certificateHosts(host) }) : tls;
  const handler = createCatalogHttpHandler(options);
  const server: Server = certificate === undefined ? createHttpServer(handler) : createHttpsServer({ cert: certificate.cert, key: certificate.key }, handler);
  // A slow or stalled reader holds a request slot only until the idle timeout; headers must come quickly.
  server.setTimeout(options.idleTimeoutMs ?? 30_000, (socket) => socket.destroy());
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.maxConnections = options.maxConnections ?? 512;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${certificate === undefined ? 'http' : 'https'}://${shownHost}:${port}`,
    port,
    ...(certificate === undefined ? {} : { certificate: certificate.cert }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

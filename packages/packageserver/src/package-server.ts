import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { type CatalogSourceType, describeError, type KubeClient, type Logger } from '@olm/core';
import { silentLogger } from '@olm/controller-runtime';
import { hostCheck, type HostCheck } from '@olm/local-apiserver';
import { createApiHandler } from './api-handler.js';
import { defaultPackageServerServiceName, registerApiService, unregisterApiService, type ApiServiceRegistration } from './api-service.js';
import { withDelegatedAccess } from './auth/delegated-access.js';
import { followRequestHeaderConfig } from './auth/request-header-config.js';
import { CatalogSourceSync } from './catalog-source-sync.js';
import { followOlmConfigSyncInterval } from './olm-config-sync-interval.js';
import { PackageManifestStore } from './package-manifest-store.js';
import { selfSignedCertificate, type ServingCertificate } from '@olm/serving-certificate';

export interface PackageServerOptions {
  /** The cluster whose CatalogSources are served (and where the APIService is registered). */
  readonly client: KubeClient;
  /** The global catalog namespace, whose packages every namespace sees. Default `olm`. */
  readonly globalNamespace?: string;
  /** Interface to listen on; default 127.0.0.1 (`0.0.0.0` in a pod). */
  readonly host?: string;
  /** TCP port; 0 (the default) picks a free one. Upstream's packageserver listens on 5443. */
  readonly port?: number;
  /**
   * HTTPS with a self-signed certificate (`true`, the default: a real aggregator only speaks TLS),
   * the given PEMs, or `false` for plain HTTP (local API servers only).
   */
  readonly tls?: boolean | ServingCertificate;
  /** Extra DNS names or IPs for the self-signed certificate (the Service's DNS names are added when registering). */
  readonly certificateHosts?: readonly string[];
  /** The PEM CA that signed `tls` (written to the APIService); default the serving certificate itself. */
  readonly caBundle?: string;
  /** Require TLS client certificates signed by this PEM CA (a real aggregator's front-proxy CA). */
  readonly clientCa?: string;
  /** Who may call the API: see {@link PackageServerAccessOptions}. */
  readonly access?: PackageServerAccessOptions;
  /**
   * Registers this server as `v1.packages.operators.coreos.com`: the APIService (with this
   * server's CA) pointing at Service `<namespace>/<serviceName>`, and with `externalHost` that
   * Service as an ExternalName for it (default: the listening host, for a local API server).
   * `externalHost: false` writes the APIService only (in-cluster, where the Service exists).
   * `unregisterOnStop` deletes them again on `stop()`: for a single local process whose API server
   * outlives it (`olm up --data-dir`), never for replicas sharing the APIService.
   */
  readonly register?: {
    readonly namespace: string;
    readonly serviceName?: string;
    readonly externalHost?: string | false;
    readonly servicePort?: number;
    readonly unregisterOnStop?: boolean;
  };
  /**
   * Re-reads every registry this often; default 5 minutes (upstream's `--interval`). The OLMConfig
   * `cluster`'s `spec.features.packageServerSyncInterval` overrides it while set.
   */
  readonly refreshIntervalMs?: number;
  /** Follow the OLMConfig `cluster` for the re-read interval (default true). */
  readonly followOlmConfig?: boolean;
  readonly logger?: Logger;
  /**
   * The booted catalog source types (the `catalogSourceTypes` point): every CatalogSource is read through
   * its type. Outside a kernel, `@olm/registry`'s `createCatalogSourceTypes()` gives the built-in ones.
   */
  readonly catalogSourceTypes: ReadonlyMap<string, CatalogSourceType>;
}

/**
 * Delegated authentication and authorization, as kube's aggregated API servers do them: callers are
 * the users a trusted front proxy names (request headers, client certificate signed by the CA of
 * ConfigMap `kube-system/extension-apiserver-authentication`) or bearer tokens (TokenReview), and
 * each request is authorized with a SubjectAccessReview. The client needs `system:auth-delegator`
 * and the `extension-apiserver-authentication-reader` Role.
 */
export interface PackageServerAccessOptions {
  /** Requests without credentials act as `system:anonymous` (kube's default); default false: they get 401. */
  readonly anonymous?: boolean;
  /** How long TokenReview and SubjectAccessReview answers are reused; default 10 s. */
  readonly cacheTtlMs?: number;
  /** Reviews waiting for the API server at most (each kind); more requests get 429 at once. Default 256. */
  readonly maxPendingReviews?: number;
  /** How long one review may take; default 10 s. */
  readonly reviewTimeoutMs?: number;
  /** How often the request-header settings (ConfigMap) are read again; default 30 s. */
  readonly requestHeaderRefreshMs?: number;
}

export interface PackageServer {
  /** `https://<host>:<port>` (or http). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The serving certificate (PEM) clients and the APIService trust; undefined over plain HTTP. */
  readonly caBundle?: string;
  readonly store: PackageManifestStore;
  /** Resolves once the CatalogSources were listed and each registry read once. */
  waitForSync(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the packageserver: watches CatalogSources, reads their registries into PackageManifests
 * and serves them as the aggregated API `packages.operators.coreos.com/v1`; optionally registers
 * itself with the cluster's aggregator.
 */
export async function startPackageServer(options: PackageServerOptions): Promise<PackageServer> {
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? '127.0.0.1';
  const store = new PackageManifestStore({ globalNamespace: options.globalNamespace ?? 'olm' });
  const sync = new CatalogSourceSync({
    client: options.client,
    store,
    logger,
    ...(options.refreshIntervalMs !== undefined ? { refreshIntervalMs: options.refreshIntervalMs } : {}),
    catalogSourceTypes: options.catalogSourceTypes,
  });
  const watches = new Set<() => void>();
  const api = createApiHandler({
    store,
    isReady: () => sync.isSynced,
    trackWatch: (close) => {
      watches.add(close);
      return () => watches.delete(close);
    },
  });

  const certificate = await servingCertificate(options);
  const requestHeader = await followRequestHeaderConfig(options.client, options.access?.requestHeaderRefreshMs ?? 30_000, logger);
  // Set once listening: the Host check needs the port.
  let checkHost: HostCheck = () => undefined;
  const handler = withDelegatedAccess(api, { ...options.access, client: options.client, requestHeader: requestHeader.current, hostCheck: (value) => checkHost(value), logger });
  const server: Server = certificate
    ? createHttpsServer(
        {
          cert: certificate.cert,
          key: certificate.key,
          // A front proxy proves itself with a client certificate, checked against the request-header CA per request.
          requestCert: true,
          rejectUnauthorized: options.clientCa !== undefined,
          ...(options.clientCa !== undefined ? { ca: options.clientCa } : {}),
        },
        handler,
      )
    : createHttpServer(handler);
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  const { port, sockets } = await listen(server, options.port ?? 0, host).catch((error: unknown) => {
    requestHeader.stop();
    throw error;
  });
  checkHost = hostCheck(host, port, certificate !== undefined);
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `${certificate ? 'https' : 'http'}://${urlHost}:${port}`;

  let registered: ApiServiceRegistration | undefined;
  let olmConfig: { stop(): Promise<void> } | undefined;
  const stop = async (): Promise<void> => {
    await olmConfig?.stop();
    requestHeader.stop();
    await sync.stop();
    for (const close of [...watches]) close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
    if (registered && options.register?.unregisterOnStop) {
      await unregisterApiService(options.client, registered).catch((error: unknown) =>
        logger.warn('cannot remove the APIService registration', { apiService: 'v1.packages.operators.coreos.com', error: describeError(error) }),
      );
    }
  };
  try {
    if (options.followOlmConfig !== false) {
      olmConfig = await followOlmConfigSyncInterval({
        client: options.client,
        defaultMs: sync.refreshInterval,
        onChange: (milliseconds) => sync.setRefreshInterval(milliseconds),
        logger,
      });
    }
    sync.start();
    if (options.register) {
      const registration = apiServiceRegistration(options, options.register, host, port, certificate);
      await registerApiService(options.client, registration);
      registered = registration;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  logger.info('packageserver listening', { url });
  return {
    url,
    host,
    port,
    ...(certificate ? { caBundle: options.caBundle ?? certificate.cert } : {}),
    store,
    waitForSync: (timeoutMs) => sync.waitForSync(timeoutMs),
    stop,
  };
}

/** The certificate to serve: none over plain HTTP, the given one, or a self-signed one for the Service's names. */
async function servingCertificate(options: PackageServerOptions): Promise<ServingCertificate | undefined> {
  if (options.tls === false) return undefined;
  if (typeof options.tls === 'object') return options.tls;
  const serviceName = options.register?.serviceName ?? defaultPackageServerServiceName;
  const serviceHosts = options.register ? [`${serviceName}.${options.register.namespace}.svc`, `${serviceName}.${options.register.namespace}.svc.cluster.local`] : [];
  return selfSignedCertificate({ hosts: [...new Set([...serviceHosts, ...(options.certificateHosts ?? []), 'localhost', '127.0.0.1', '::1'])] });
}

/** Listens and tracks open sockets, so that stop() can end kept-alive connections at once. */
async function listen(server: Server, port: number, host: string): Promise<{ port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { port: (server.address() as AddressInfo).port, sockets };
}

function apiServiceRegistration(
  options: PackageServerOptions,
  register: NonNullable<PackageServerOptions['register']>,
  host: string,
  port: number,
  certificate: ServingCertificate | undefined,
): ApiServiceRegistration {
  const externalHost = register.externalHost === undefined ? (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host) : register.externalHost;
  return {
    service: { namespace: register.namespace, name: register.serviceName ?? defaultPackageServerServiceName, port: register.servicePort ?? port },
    ...(externalHost !== false ? { externalHost } : {}),
    ...(certificate ? { caBundle: options.caBundle ?? certificate.cert } : { plainHttp: true }),
  };
}

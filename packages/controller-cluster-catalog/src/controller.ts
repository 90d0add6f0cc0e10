import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SourceDirectoryAnnotation } from '@olm/api';
import { createOciRegistryClient, type BundleImageLimits } from '@olm/bundle-puller';
import { startCatalogHttpServer, type CatalogHttpServer, type CatalogHttpServerOptions } from '@olm/catalog-http';
import { OlmError, type ImageSignatureVerifier, type KubeClient, type Reconciler } from '@olm/core';
import { formatGoDuration } from '@olm/go-format';
import { selfSignedCertificate } from '@olm/serving-certificate';
import type { CatalogLimits } from '@olm/registry';
import { defaultCatalogImageLimits } from './catalog-image-limits.js';
import { ClusterCatalogErrorCodes, loadCatalogImage, loadFrom, pullCatalogImage, verifyCatalogImage, type LoadedCatalog } from './catalog-source.js';
import { createClusterCatalogReconciler } from './cluster-catalog-reconciler.js';
import type { CatalogSourceSpec } from './cluster-catalog-spec.js';
import { ServedCatalogs } from './served-catalogs.js';

export interface ClusterCatalogControllerOptions {
  /** The catalog content server: `host` (default 127.0.0.1), `port` (default 0), `tls` (default self-signed), `limits`, … (`@olm/catalog-http`). */
  readonly server?: Omit<CatalogHttpServerOptions, 'catalog' | 'basePath'>;
  /** The URL clients reach the server at, e.g. `https://catalogd-service.olm.svc` (default: the server's own `https://host:port`); `status.urls.base` is `<baseUrl>/catalogs/<name>`. */
  readonly baseUrl?: string;
  /** Where catalog content is kept on disk (default: a temporary directory, removed at stop). */
  readonly cacheDirectory?: string;
  /** Directories a ClusterCatalog may be served from by name (`olm.operatorframework.io/source-directory: <name>`), for air-gapped and local use. */
  readonly directories?: Readonly<Record<string, string>>;
  /** Registries reached over plain http besides loopback ones (`host` or `host:port`). */
  readonly insecureRegistries?: readonly string[];
  readonly registryRequestTimeoutMs?: number;
  readonly registryProxy?: { readonly httpProxy?: string; readonly httpsProxy?: string; readonly noProxy?: string };
  /** Bounds of one catalog image (`defaultCatalogImageLimits` for those unset). */
  readonly catalogImageLimits?: Partial<BundleImageLimits>;
  /** Bounds of the file-based catalog, as the registry's loader applies them (`defaultCatalogLimits`). */
  readonly catalogLimits?: Partial<CatalogLimits>;
  /** How long one unpack may take. Default 10 minutes. */
  readonly unpackTimeoutMs?: number;
  /** How long a minute of `pollIntervalMinutes` lasts; tests shorten it. Default 60,000. */
  readonly pollMinuteMs?: number;
  readonly now?: () => Date;
  /** Verifies the images of catalogs annotated `olm.operatorframework.io/signature-policy` (the `imageSignatureVerifier` point). */
  readonly verifier?: ImageSignatureVerifier;
}

export interface ClusterCatalogController {
  /** The `cluster-catalog` reconciler, for `manager.add` or the `reconcilers` point. */
  readonly reconcilers: readonly Reconciler[];
  /** Starts the content server (before the reconciler runs). */
  start(): Promise<void>;
  /** Stops the server and closes the content (a temporary cache directory is removed). */
  stop(): Promise<void>;
  /** The running server (`url`, `certificate`: the CA clients trust), once started. */
  readonly server: CatalogHttpServer | undefined;
}

/** The ClusterCatalog controller as a library: one HTTPS content server for every catalog, and its reconciler. */
export function createClusterCatalogController(options: ClusterCatalogControllerOptions & { readonly client: KubeClient }): ClusterCatalogController {
  let server: CatalogHttpServer | undefined;
  let cacheDirectory = options.cacheDirectory;
  let served: ServedCatalogs | undefined;
  const imageLimits = { ...defaultCatalogImageLimits, ...options.catalogImageLimits };
  const registryClient = createOciRegistryClient({
    userAgent: 'olm-catalogd',
    ...(options.insecureRegistries ? { insecureRegistries: options.insecureRegistries } : {}),
    ...(options.registryRequestTimeoutMs !== undefined ? { requestTimeoutMs: options.registryRequestTimeoutMs } : {}),
    ...(options.registryProxy ? { proxy: options.registryProxy } : {}),
  });
  const started = () => {
    if (!server || !served || !cacheDirectory) throw new OlmError(ClusterCatalogErrorCodes.serverNotStarted, 'the ClusterCatalog controller was not started; call start() (the plugin does) before reconciling');
    return { server, served, cacheDirectory };
  };
  const unpackTimeoutMs = options.unpackTimeoutMs ?? 10 * 60_000;
  const load = async (source: CatalogSourceSpec, current: string | undefined, signal: AbortSignal): Promise<LoadedCatalog | undefined> => {
    if (source.type === 'directory') return { catalog: await loadFrom(directoryOf(options.directories ?? {}, source.name), `catalog directory "${source.name}"`, options.catalogLimits) };
    const deadline = AbortSignal.timeout(unpackTimeoutMs);
    const sourceOptions = { registryClient, imageLimits, scratchDirectory: join(started().cacheDirectory, '.unpack'), signal: AbortSignal.any([signal, deadline]), ...(options.catalogLimits ? { catalogLimits: options.catalogLimits } : {}) };
    try {
      const pulled = await pullCatalogImage(source.ref, sourceOptions);
      if (pulled.resolvedRef === current) return undefined;
      if (source.signaturePolicy) await verifyCatalogImage(options.verifier, source.ref, pulled.pulled.referenceDigest, source.signaturePolicy, sourceOptions.signal);
      return await loadCatalogImage(source.ref, pulled, sourceOptions);
    } catch (error) {
      if (!deadline.aborted) throw error;
      throw new OlmError('OLM_CLUSTER_CATALOG_UNPACK_TIMEOUT', `unpacking catalog image ${source.ref} took longer than ${formatGoDuration(unpackTimeoutMs)}; raise the ClusterCatalog controller's option unpackTimeoutMs`, { cause: error });
    }
  };
  const reconciler = createClusterCatalogReconciler({
    client: () => options.client,
    served: () => started().served,
    baseUrl: (name) => `${(options.baseUrl ?? started().server.url).replace(/\/+$/, '')}/catalogs/${name}`,
    load,
    now: options.now ?? (() => new Date()),
    pollMinuteMs: options.pollMinuteMs ?? 60_000,
  });
  let ownCacheDirectory = false;
  return {
    reconcilers: [reconciler],
    get server() {
      return server;
    },
    async start() {
      if (!cacheDirectory) {
        cacheDirectory = await mkdtemp(join(tmpdir(), 'olm-cluster-catalogs-'));
        ownCacheDirectory = true;
      }
      await mkdir(cacheDirectory, { recursive: true });
      const content = new ServedCatalogs(cacheDirectory);
      server = await startCatalogHttpServer({ ...options.server, tls: await servingCertificate(options), catalog: (name) => content.get(name) });
      served = content;
    },
    async stop() {
      await server?.stop();
      await served?.closeAll();
      if (ownCacheDirectory && cacheDirectory) await rm(cacheDirectory, { recursive: true, force: true });
      server = undefined;
      served = undefined;
    },
  };
}

/** The given certificate, else a self-signed one valid for loopback, the listen host and the base URL's host (e.g. the Service's DNS name). */
async function servingCertificate(options: ClusterCatalogControllerOptions): Promise<CatalogHttpServerOptions['tls']> {
  if (options.server?.tls !== undefined) return options.server.tls;
  const host = options.server?.host ?? '127.0.0.1';
  const hosts = ['localhost', '127.0.0.1', '::1', ...(host === '0.0.0.0' || host === '::' ? [] : [host]), ...(options.baseUrl ? [new URL(options.baseUrl).hostname.replace(/^\[(.*)\]$/, '$1')] : [])];
  return selfSignedCertificate({ hosts: [...new Set(hosts)] });
}

function directoryOf(directories: Readonly<Record<string, string>>, name: string): string {
  const directory = Object.hasOwn(directories, name) ? directories[name] : undefined;
  if (directory !== undefined) return directory;
  const known = Object.keys(directories);
  throw new OlmError(
    ClusterCatalogErrorCodes.unknownDirectory,
    `annotation ${SourceDirectoryAnnotation} names catalog directory "${name}", which this controller was not given (${known.length > 0 ? `it has ${known.map((key) => `"${key}"`).join(', ')}` : 'it has none'}); ` +
      `start it with --catalog-directory ${name}=DIR (olm run) or the plugin option directories, or remove the annotation to pull the image`,
  );
}

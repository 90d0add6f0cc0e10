import type { CatalogConnection, CatalogSourceType, CatalogSourceWorkload } from '@olm/core';
import type { RegistryPodOptions } from './registry-pod/registry-pod-workload.js';
import { createRegistryClient } from '../grpc/client.js';
import type { RegistryClientOptions } from '../grpc/client.js';
import { apiBundleToCatalogBundle, loadCatalogFromRegistry } from '../grpc/catalog-from-registry.js';
import { registryContentDigest } from '../grpc/registry-digest.js';
import type { LoadFromRegistryOptions } from '../grpc/catalog-from-registry.js';
import { catalogSourceOf } from './catalog-source-of.js';
import { specInvalid } from './errors.js';
import { OlmError } from '@olm/core';
import { RegistryGrpcErrorCodes } from '../grpc/errors.js';

/** A stream bound the client hit, with the CatalogSource named: logs and events then say which catalog streams too much. */
function namingSource(source: string, error: unknown): unknown {
  if (!(error instanceof OlmError) || error.code !== RegistryGrpcErrorCodes.streamLimit) return error;
  return new OlmError(error.code, `${source}: ${error.message}`, { cause: error, details: { ...error.details, catalogSource: source } });
}

export interface GrpcSourceTypeOptions {
  readonly client?: RegistryClientOptions;
  readonly load?: LoadFromRegistryOptions;
  /** The registry Pods of image catalogs (`spec.image`): their images, user, and how their Service is dialed. */
  readonly registryPod?: RegistryPodOptions;
}

/**
 * The registry Pod code uses the Kubernetes helpers of @olm/controller-runtime: imported on first use, so that
 * what never runs a catalog image (`olm resolve`) does not load them.
 */
function lazyRegistryPodWorkload(options: RegistryPodOptions): CatalogSourceWorkload {
  let loaded: CatalogSourceWorkload | undefined;
  // One workload (and one cache of verified images) even when the first calls come together.
  let loading: Promise<CatalogSourceWorkload> | undefined;
  const load = () => (loading ??= import('./registry-pod/registry-pod-workload.js').then((module) => (loaded = module.createRegistryPodWorkload(options))));
  return {
    ensure: async (context) => (await load()).ensure(context),
    // A CatalogSource whose status shows no registry Service has nothing to release (most passes): no import.
    release: async (context) => (catalogSourceOf(context.source).status?.registryService ? ((await load()).release?.(context) ?? []) : []),
    forget: (key) => loaded?.forget?.(key),
    locate: async (source, client) => (await load()).locate?.(source, client),
  };
}

/**
 * `sourceType: grpc`: a registry server at `spec.address` (`host:port`), ours or an upstream
 * `opm serve`, or a catalog image (`spec.image`) that its workload runs in a registry Pod behind a
 * Service (the catalog operator's part; `open` then gets the Service's address). Its connections offer the
 * contract's manifests on demand: `loadWithoutManifests` lists bundles without the `GetBundle` per
 * bundle with an image, and `loadBundle` is one `GetBundle`; `probe` asks the gRPC health service,
 * `watchState` follows the channel's connectivity and `contentDigest` is `registryContentDigest`.
 */
export function createGrpcSourceType(options: GrpcSourceTypeOptions = {}): CatalogSourceType {
  return {
    sourceType: 'grpc',
    validate: (spec) => (spec.image || spec.address ? undefined : 'image and address unset: at least one must be set for sourcetype: grpc'),
    workload: lazyRegistryPodWorkload(options.registryPod ?? {}),
    async open(request) {
      const address = request.spec.address;
      if (typeof address !== 'string' || address.trim() === '') {
        const image = typeof request.spec.image === 'string' ? ` (spec.image ${request.spec.image} needs a registry pod; serve it and set spec.address)` : '';
        throw specInvalid(`CatalogSource ${request.namespace}/${request.name}: sourceType grpc needs spec.address${image}`, {
          catalogSource: `${request.namespace}/${request.name}`,
          field: 'spec.address',
        });
      }
      const client = createRegistryClient(address.trim(), options.client);
      const source = `CatalogSource ${request.namespace}/${request.name}`;
      const connection: CatalogConnection = {
        address: client.address,
        load: () => loadCatalogFromRegistry(client, options.load).catch((error: unknown) => Promise.reject(namingSource(source, error))),
        loadWithoutManifests: () =>
          loadCatalogFromRegistry(client, { ...options.load, manifests: false }).catch((error: unknown) => Promise.reject(namingSource(source, error))),
        loadBundle: async ({ packageName, channelName, name }) => apiBundleToCatalogBundle(await client.getBundle(packageName, channelName, name)).bundle,
        state: () => client.state(),
        watchState: (listener) => client.watchState(listener),
        contentDigest: ({ timeoutMs }) => registryContentDigest(client, { deadlineMs: timeoutMs }),
        async probe({ timeoutMs }) {
          try {
            return (await client.checkHealth('', { deadlineMs: timeoutMs })) === 'SERVING' ? 'READY' : 'TRANSIENT_FAILURE';
          } catch {
            return 'TRANSIENT_FAILURE';
          }
        },
        async close() {
          client.close();
        },
      };
      return connection;
    },
  };
}

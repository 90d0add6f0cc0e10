import type { CatalogConnection, CatalogSourceType } from '@olm/core';
import { createRegistryClient } from '../grpc/client.js';
import type { RegistryClientOptions } from '../grpc/client.js';
import { apiBundleToCatalogBundle, loadCatalogFromRegistry } from '../grpc/catalog-from-registry.js';
import { registryContentDigest } from '../grpc/registry-digest.js';
import type { LoadFromRegistryOptions } from '../grpc/catalog-from-registry.js';
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
}

/**
 * `sourceType: grpc`: a registry server at `spec.address` (`host:port`), ours or an upstream
 * `opm serve`. Catalog images (`spec.image` without `address`) need a pod to run them, which this
 * source type does not create: such a spec is rejected as invalid. Its connections offer the
 * contract's manifests on demand: `loadWithoutManifests` lists bundles without the `GetBundle` per
 * bundle with an image, and `loadBundle` is one `GetBundle`; `probe` asks the gRPC health service,
 * `watchState` follows the channel's connectivity and `contentDigest` is `registryContentDigest`.
 */
export function createGrpcSourceType(options: GrpcSourceTypeOptions = {}): CatalogSourceType {
  return {
    sourceType: 'grpc',
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

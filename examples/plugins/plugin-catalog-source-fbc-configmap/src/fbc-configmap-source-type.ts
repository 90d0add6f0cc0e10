import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CatalogConnection, CatalogContent, CatalogSourceType, ConnectionState, KubeClient } from '@olm/core';
import { loadCatalog } from '@olm/registry';
import { configMapNameOf, fbcConfigMapWorkload } from './fbc-configmap-workload.js';

/** The `spec.sourceType` this package adds. */
export const FBC_CONFIGMAP_SOURCE_TYPE = 'fbc-configmap';

// Kubernetes' rule for ConfigMap keys, which makes each one a plain file name too.
const configMapKey = /^[-._a-zA-Z0-9]+$/;

/**
 * `sourceType: fbc-configmap`: a file-based catalog kept in a ConfigMap of the CatalogSource's namespace
 * (`spec.configMap`), one FBC file (`.yaml`/`.json`) per key. Each `load()` reads the ConfigMap with the
 * caller's client and loads its files with `@olm/registry`'s `loadCatalog` (its limits bound what is decoded).
 */
export function createFbcConfigMapSourceType(): CatalogSourceType {
  return {
    sourceType: FBC_CONFIGMAP_SOURCE_TYPE,
    validate: (spec) =>
      typeof spec.configMap === 'string' && spec.configMap !== ''
        ? undefined
        : `spec.configMap unset: name the ConfigMap that holds the file-based catalog, for sourcetype: ${FBC_CONFIGMAP_SOURCE_TYPE}`,
    workload: fbcConfigMapWorkload,
    async open(request): Promise<CatalogConnection> {
      const catalogSource = `CatalogSource ${request.namespace}/${request.name}`;
      const name = configMapNameOf({ spec: request.spec });
      const client = request.client;
      if (!client) throw new Error(`${catalogSource}: sourceType ${FBC_CONFIGMAP_SOURCE_TYPE} reads ConfigMap ${request.namespace}/${name} from the cluster, but was opened without a client`);
      let state: ConnectionState = 'IDLE';
      let closed = false;
      return {
        async load() {
          if (closed) throw new Error(`${catalogSource}: the ${FBC_CONFIGMAP_SOURCE_TYPE} connection is closed`);
          try {
            const catalog = await loadConfigMapCatalog(client, request.namespace, name);
            state = 'READY';
            return catalog;
          } catch (error) {
            state = 'TRANSIENT_FAILURE';
            throw new Error(`${catalogSource}: cannot load the file-based catalog of ConfigMap ${request.namespace}/${name}: ${(error as Error).message}`, { cause: error });
          }
        },
        state: () => (closed ? 'SHUTDOWN' : state),
        async close() {
          closed = true;
        },
      };
    },
  };
}

/** The ConfigMap's files, written to a private temporary directory for `loadCatalog` and removed after. */
async function loadConfigMapCatalog(client: KubeClient, namespace: string, name: string): Promise<CatalogContent> {
  const configMap = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
  const data: unknown = configMap['data'];
  const files = typeof data === 'object' && data !== null ? Object.entries(data) : [];
  if (files.length === 0) throw new Error('it has no data keys; put one FBC file (.yaml or .json) in each');
  const directory = await mkdtemp(join(tmpdir(), 'olm-fbc-configmap-'));
  try {
    for (const [key, text] of files) {
      if (!configMapKey.test(key) || key === '.' || key === '..' || typeof text !== 'string') throw new Error(`data key ${JSON.stringify(key)} is not a file name with text`);
      await writeFile(join(directory, key), text);
    }
    return await loadCatalog(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

import type { CatalogSource } from '@olm/api';
import type { CachedObject, KubeClient } from '@olm/core';
import { createConfigMapSourceType } from '@olm/registry';
import type { PackageQueries } from './read-registry.js';
import { readSourceTypeCatalog } from './source-type-catalog.js';

const configMapSourceTypes = new Set(['configmap', 'internal']);

/**
 * Whether a CatalogSource is a ConfigMap catalog (`sourceType: configmap`, or upstream's alias
 * `internal`). This project's catalog operator reads those in-process, so no registry serves them:
 * the packageserver reads the ConfigMap itself.
 */
export function isConfigMapCatalog(source: CatalogSource): boolean {
  return configMapSourceTypes.has(source.spec?.sourceType ?? '');
}

/**
 * Reads a ConfigMap catalog now: its ConfigMap (`spec.configMap` in the CatalogSource's namespace)
 * through `@olm/registry`'s configmap source type, indexed as a registry would serve it. Throws when
 * the ConfigMap is missing or malformed, with the registry's message (which key, which CSV).
 */
export async function readConfigMapCatalog(client: KubeClient, source: CatalogSource): Promise<PackageQueries> {
  const sourceType = source.spec?.sourceType === 'internal' ? 'internal' : 'configmap';
  const type = createConfigMapSourceType({
    sourceType,
    fetchConfigMap: async ({ namespace, name }) =>
      (await client.get<CachedObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name })).data ?? {},
  });
  return readSourceTypeCatalog(type, source);
}

import type { CatalogSourceType, KubeClient } from '@olm/core';
import { catalogFromConfigMapData } from './configmap-catalog.js';
import { configMapWorkload } from './configmap-workload.js';
import { CatalogSourceErrorCodes, specInvalid } from './errors.js';
import { createLoadedConnection } from './loaded-connection.js';
import { OlmError } from '@olm/core';
import type { CatalogLimits } from '../catalog-limits.js';

/** Reads a ConfigMap's `data` (the caller brings the cluster client). */
export type FetchConfigMap = (reference: { readonly namespace: string; readonly name: string }) => Promise<Readonly<Record<string, string>>>;

export interface ConfigMapSourceTypeOptions {
  /** Default: through the client the caller opens with; without either, opening fails with `OLM_REGISTRY_SOURCE_UNAVAILABLE`. */
  readonly fetchConfigMap?: FetchConfigMap;
  /** `configmap` (default) or upstream's alias `internal`. */
  readonly sourceType?: 'configmap' | 'internal';
  /** Bounds on what one load decodes (the ConfigMap counts as one catalog file); default `defaultCatalogLimits`. */
  readonly limits?: Partial<CatalogLimits>;
}

/**
 * `sourceType: configmap` (and `internal`): the ConfigMap named by `spec.configMap`, in the
 * CatalogSource's namespace, holding `customResourceDefinitions`, `clusterServiceVersions` and
 * `packages`. Each `load()` fetches it again. Its workload reads the ConfigMap on each pass of the
 * catalog operator (`ConfigMapError`, `status.configMapReference`).
 */
export function createConfigMapSourceType(options: ConfigMapSourceTypeOptions = {}): CatalogSourceType {
  const sourceType = options.sourceType ?? 'configmap';
  return {
    sourceType,
    validate: (spec) => (spec.configMap ? undefined : `configmap name unset: must be set for sourcetype: ${sourceType}`),
    workload: configMapWorkload,
    async open(request) {
      const name = request.spec.configMap;
      if (typeof name !== 'string' || name === '') {
        throw specInvalid(`CatalogSource ${request.namespace}/${request.name}: sourceType ${sourceType} needs spec.configMap`, {
          catalogSource: `${request.namespace}/${request.name}`,
          field: 'spec.configMap',
        });
      }
      const fetchConfigMap = options.fetchConfigMap ?? (request.client ? fetchThrough(request.client) : undefined);
      if (!fetchConfigMap) {
        throw new OlmError(CatalogSourceErrorCodes.unavailable, `sourceType ${sourceType} cannot read ConfigMap ${request.namespace}/${name}: no ConfigMap reader was configured`, {
          details: { hint: 'open it with a client, or pass fetchConfigMap to createConfigMapSourceType / createCatalogSourceTypes' },
        });
      }
      const reference = { namespace: request.namespace, name };
      return createLoadedConnection(async () =>
        catalogFromConfigMapData(await fetchConfigMap(reference), `ConfigMap ${request.namespace}/${name}`, { limits: options.limits }),
      );
    },
  };
}

/** A ConfigMap's data read with the caller's client. */
function fetchThrough(client: KubeClient): FetchConfigMap {
  return async ({ namespace, name }) => {
    const configMap = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
    return isStringRecord(configMap.data) ? configMap.data : {};
  };
}

const isStringRecord = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && Object.values(value).every((entry) => typeof entry === 'string');

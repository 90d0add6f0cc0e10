import type { CatalogSourceType } from '@olm/core';
import { catalogFromConfigMapData } from './configmap-catalog.js';
import { CatalogSourceErrorCodes, specInvalid } from './errors.js';
import { createLoadedConnection } from './loaded-connection.js';
import { OlmError } from '@olm/core';
import type { CatalogLimits } from '../catalog-limits.js';

/** Reads a ConfigMap's `data` (the caller brings the cluster client). */
export type FetchConfigMap = (reference: { readonly namespace: string; readonly name: string }) => Promise<Readonly<Record<string, string>>>;

export interface ConfigMapSourceTypeOptions {
  /** Without it, opening a configmap catalog fails with `OLM_REGISTRY_SOURCE_UNAVAILABLE`. */
  readonly fetchConfigMap?: FetchConfigMap;
  /** `configmap` (default) or upstream's alias `internal`. */
  readonly sourceType?: 'configmap' | 'internal';
  /** Bounds on what one load decodes (the ConfigMap counts as one catalog file); default `defaultCatalogLimits`. */
  readonly limits?: Partial<CatalogLimits>;
}

/**
 * `sourceType: configmap` (and `internal`): the ConfigMap named by `spec.configMap`, in the
 * CatalogSource's namespace, holding `customResourceDefinitions`, `clusterServiceVersions` and
 * `packages`. Each `load()` fetches it again.
 */
export function createConfigMapSourceType(options: ConfigMapSourceTypeOptions = {}): CatalogSourceType {
  const sourceType = options.sourceType ?? 'configmap';
  return {
    sourceType,
    async open(request) {
      const name = request.spec.configMap;
      if (typeof name !== 'string' || name === '') {
        throw specInvalid(`CatalogSource ${request.namespace}/${request.name}: sourceType ${sourceType} needs spec.configMap`, {
          catalogSource: `${request.namespace}/${request.name}`,
          field: 'spec.configMap',
        });
      }
      const fetchConfigMap = options.fetchConfigMap;
      if (!fetchConfigMap) {
        throw new OlmError(CatalogSourceErrorCodes.unavailable, `sourceType ${sourceType} cannot read ConfigMap ${request.namespace}/${name}: no ConfigMap reader was configured`, {
          details: { hint: 'pass fetchConfigMap to createConfigMapSourceType / createCatalogSourceTypes' },
        });
      }
      const reference = { namespace: request.namespace, name };
      return createLoadedConnection(async () =>
        catalogFromConfigMapData(await fetchConfigMap(reference), `ConfigMap ${request.namespace}/${name}`, { limits: options.limits }),
      );
    },
  };
}

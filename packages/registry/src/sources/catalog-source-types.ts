import type { CatalogContent, CatalogSourceType } from '@olm/core';
import { OlmError } from '@olm/core';
import { createConfigMapSourceType } from './configmap-source.js';
import type { FetchConfigMap } from './configmap-source.js';
import { CatalogSourceErrorCodes } from './errors.js';
import { createFbcDirectorySourceType } from './fbc-directory-source.js';
import { createGrpcSourceType } from './grpc-source.js';
import type { GrpcSourceTypeOptions } from './grpc-source.js';
import type { CatalogLimits } from '../catalog-limits.js';

export interface CatalogSourceTypesOptions {
  /** Reads a file-based catalog directory; the registry plugin passes `loadCatalog`. */
  readonly loadDirectory?: (directory: string) => Promise<CatalogContent>;
  /** Reads a ConfigMap's data, for `configmap`/`internal` catalogs. */
  readonly fetchConfigMap?: FetchConfigMap;
  readonly grpc?: GrpcSourceTypeOptions;
  /** Bounds on what a ConfigMap catalog load decodes (directories take theirs from `loadDirectory`); default `defaultCatalogLimits`. */
  readonly limits?: Partial<CatalogLimits>;
}

/** Every catalog source type this package provides: `grpc`, `configmap`, `internal`, `fbc-directory`. */
export function createCatalogSourceTypes(options: CatalogSourceTypesOptions = {}): CatalogSourceType[] {
  const loadDirectory =
    options.loadDirectory ??
    (async (directory: string): Promise<CatalogContent> => {
      throw new OlmError(CatalogSourceErrorCodes.unavailable, `cannot read catalog directory ${directory}: no directory loader was configured`, {
        details: { hint: 'pass loadDirectory (the registry loadCatalog) to createCatalogSourceTypes' },
      });
    });
  const configMap = { ...(options.fetchConfigMap ? { fetchConfigMap: options.fetchConfigMap } : {}), ...(options.limits ? { limits: options.limits } : {}) };
  return [
    createGrpcSourceType(options.grpc),
    createConfigMapSourceType({ ...configMap, sourceType: 'configmap' }),
    createConfigMapSourceType({ ...configMap, sourceType: 'internal' }),
    createFbcDirectorySourceType({ loadDirectory }),
  ];
}

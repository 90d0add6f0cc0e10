import type { CatalogContent, CatalogSourceType } from '@olm/core';
import { createLoadedConnection } from './loaded-connection.js';
import { specInvalid } from './errors.js';

/** Our own source type name for a file-based catalog read from a local directory. */
export const fbcDirectorySourceType = 'fbc-directory';

export interface FbcDirectorySourceTypeOptions {
  /** Reads a file-based catalog directory (the registry's `loadCatalog`). */
  readonly loadDirectory: (directory: string) => Promise<CatalogContent>;
}

/**
 * `sourceType: fbc-directory` (not an upstream type): the catalog is the file-based catalog
 * directory at `spec.directory` (our extension field), or else at `spec.address`. Each `load()`
 * re-reads the directory, so edits show on the next sync.
 */
export function createFbcDirectorySourceType(options: FbcDirectorySourceTypeOptions): CatalogSourceType {
  return {
    sourceType: fbcDirectorySourceType,
    async open(request) {
      const directory = typeof request.spec.directory === 'string' && request.spec.directory !== '' ? request.spec.directory : request.spec.address;
      if (typeof directory !== 'string' || directory.trim() === '') {
        throw specInvalid(
          `CatalogSource ${request.namespace}/${request.name}: sourceType ${fbcDirectorySourceType} needs spec.directory (or spec.address) naming a catalog directory`,
          { catalogSource: `${request.namespace}/${request.name}`, field: 'spec.directory' },
        );
      }
      return createLoadedConnection(() => options.loadDirectory(directory));
    },
  };
}

import { timestampAge } from '@olm/go-format';
import type { PackageManifest } from './package-manifest.js';

/** `kubectl get packagemanifests` output: a meta.k8s.io/v1 Table with upstream's columns Name, Catalog, Age. */
export const tableContentType = 'application/json;as=Table;v=v1;g=meta.k8s.io';

export function wantsTable(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => /(^|;)\s*as=Table/.test(part) && /g=meta\.k8s\.io/.test(part));
}

const columnDefinitions = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
  { name: 'Catalog', type: 'string', format: '', description: 'The source catalog for this package', priority: 0 },
  { name: 'Age', type: 'string', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 },
];

/**
 * A Table of manifests. Rows carry the object as `includeObject` asks: `Metadata` (the default,
 * which kubectl needs for `-A` and `--show-labels`), `Object` or `None`.
 */
export function manifestTable(
  manifests: readonly PackageManifest[],
  options: { readonly includeObject?: string | null; readonly resourceVersion?: string; readonly now?: number } = {},
): Record<string, unknown> {
  const include = options.includeObject ?? 'Metadata';
  const now = options.now ?? Date.now();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {},
    columnDefinitions,
    rows: manifests.map((manifest) => {
      const row: Record<string, unknown> = {
        cells: [manifest.metadata.name, manifest.status.catalogSourceDisplayName, timestampAge(manifest.metadata.creationTimestamp, now)],
      };
      if (include === 'Object') row['object'] = manifest;
      else if (include !== 'None') row['object'] = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: manifest.metadata };
      return row;
    }),
  };
}

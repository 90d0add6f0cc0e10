import type { PackageManifest } from './package-manifest.js';

/** `kubectl get packagemanifests` output: a meta.k8s.io/v1 Table with upstream's columns Name, Catalog, Age. */
export const tableContentType = 'application/json;as=Table;v=v1;g=meta.k8s.io';

export function wantsTable(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => /(^|;)\s*as=Table/.test(part) && /g=meta\.k8s\.io/.test(part));
}

/** Kubernetes' `duration.HumanDuration` (5s, 2m30s, 3h20m, 2d, 1y30d), as the Age column shows it. */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

function age(timestamp: string | undefined, now: number): string {
  const time = timestamp === undefined ? Number.NaN : Date.parse(timestamp);
  return Number.isNaN(time) ? '<unknown>' : humanDuration(now - time);
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
        cells: [manifest.metadata.name, manifest.status.catalogSourceDisplayName, age(manifest.metadata.creationTimestamp, now)],
      };
      if (include === 'Object') row['object'] = manifest;
      else if (include !== 'None') row['object'] = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: manifest.metadata };
      return row;
    }),
  };
}

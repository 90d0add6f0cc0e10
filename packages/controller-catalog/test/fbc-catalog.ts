import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** An API as `olm.gvk` properties name it. */
export interface Gvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface BundleSpec {
  /** The CSV name, e.g. `etcdoperator.v0.9.2`. */
  readonly name: string;
  readonly version: string;
  readonly provides?: readonly Gvk[];
  readonly requires?: readonly Gvk[];
  /** Further manifests the bundle ships besides its CSV (each an `olm.bundle.object` property). */
  readonly objects?: readonly object[];
  /** Further properties, as they are (`olm.constraint`, …). */
  readonly properties?: ReadonlyArray<{ readonly type: string; readonly value: unknown }>;
}

/** A channel entry: the update graph edges of one bundle. */
export interface EntrySpec {
  readonly name: string;
  readonly replaces?: string;
  readonly skips?: readonly string[];
  readonly skipRange?: string;
}

export interface PackageSpec {
  readonly name: string;
  readonly defaultChannel: string;
  readonly channels: Readonly<Record<string, readonly EntrySpec[]>>;
  readonly bundles: readonly BundleSpec[];
  /** `olm.deprecations` entries: `{ schema: 'olm.package' | 'olm.channel' | 'olm.bundle', name?, message }`. */
  readonly deprecations?: ReadonlyArray<{ readonly schema: string; readonly name?: string; readonly message: string }>;
}

function clusterServiceVersion(bundle: BundleSpec): object {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: bundle.name },
    spec: {
      version: bundle.version,
      displayName: bundle.name,
      // What the OLM operator needs to install it in an OwnNamespace or AllNamespaces group.
      installModes: ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({ type, supported: true })),
      install: { strategy: 'deployment', spec: { deployments: [] } },
    },
  };
}

/**
 * Writes a file-based catalog (one `catalog.json` per package) whose bundles carry their CSV as an
 * `olm.bundle.object` property, so a `fbc-directory` CatalogSource serves it. Writing again
 * replaces the packages given (a republished catalog).
 */
export function writeCatalog(directory: string, packages: readonly PackageSpec[]): void {
  for (const pkg of packages) {
    const blobs: object[] = [
      { schema: 'olm.package', name: pkg.name, defaultChannel: pkg.defaultChannel },
      ...Object.entries(pkg.channels).map(([name, entries]) => ({ schema: 'olm.channel', package: pkg.name, name, entries })),
      ...pkg.bundles.map((bundle) => ({
        schema: 'olm.bundle',
        name: bundle.name,
        package: pkg.name,
        image: `registry.example.com/${pkg.name}-bundle:v${bundle.version}`,
        properties: [
          { type: 'olm.package', value: { packageName: pkg.name, version: bundle.version } },
          ...(bundle.provides ?? []).map((value) => ({ type: 'olm.gvk', value })),
          ...(bundle.requires ?? []).map((value) => ({ type: 'olm.gvk.required', value })),
          ...(bundle.properties ?? []),
          ...[clusterServiceVersion(bundle), ...(bundle.objects ?? [])].map((object) => ({
            type: 'olm.bundle.object',
            value: { data: Buffer.from(JSON.stringify(object)).toString('base64') },
          })),
        ],
      })),
      ...(pkg.deprecations
        ? [
            {
              schema: 'olm.deprecations',
              package: pkg.name,
              entries: pkg.deprecations.map(({ schema, name, message }) => ({ reference: { schema, ...(name ? { name } : {}) }, message })),
            },
          ]
        : []),
    ];
    mkdirSync(join(directory, pkg.name), { recursive: true });
    writeFileSync(join(directory, pkg.name, 'catalog.json'), blobs.map((blob) => JSON.stringify(blob)).join('\n'));
  }
}

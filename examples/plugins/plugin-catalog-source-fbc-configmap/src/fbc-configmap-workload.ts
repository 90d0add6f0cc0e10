import type { CatalogSourceWorkload, CachedObject } from '@olm/core';

/** `status.configMapReference` as OLM's CatalogSource CRD has it. */
interface ConfigMapReference {
  readonly name: string;
  readonly namespace: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly lastUpdateTime: string;
}

const fieldOf = (object: unknown, field: string): unknown => (typeof object === 'object' && object !== null ? Reflect.get(object, field) : undefined);
const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The ConfigMap a CatalogSource of this type names in `spec.configMap`, in its namespace. */
export function configMapNameOf(source: CachedObject): string {
  return stringOf(fieldOf(source['spec'], 'configMap'));
}

/**
 * The cluster part of an `fbc-configmap` catalog, run by the catalog operator on each pass through the
 * `catalogSourceTypes` point: the ConfigMap must exist (else `ConfigMapError`, and the catalog is not
 * served), `status.configMapReference` follows it, and a new resourceVersion makes the cached catalog stale.
 */
export const fbcConfigMapWorkload: CatalogSourceWorkload = {
  async ensure({ source, client, now, contentChanged }) {
    const namespace = source.metadata?.namespace ?? '';
    const name = configMapNameOf(source);
    const configMap = await client.find({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
    if (!configMap) {
      return {
        failure: {
          reason: 'ConfigMapError',
          message: `ConfigMap ${namespace}/${name} (spec.configMap), which holds the file-based catalog, does not exist; create it, or name an existing one`,
        },
      };
    }
    const before = fieldOf(source['status'], 'configMapReference');
    const resourceVersion = configMap.metadata?.resourceVersion;
    if (fieldOf(before, 'resourceVersion') !== resourceVersion) contentChanged();
    const unchanged = fieldOf(before, 'resourceVersion') === resourceVersion && fieldOf(before, 'uid') === configMap.metadata?.uid;
    const reference: ConfigMapReference = {
      name,
      namespace,
      ...(configMap.metadata?.uid ? { uid: configMap.metadata.uid } : {}),
      ...(resourceVersion ? { resourceVersion } : {}),
      // RFC 3339 in seconds, as Kubernetes writes times
      lastUpdateTime: now.toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    return { status: { configMapReference: unchanged ? before : reference } };
  },
};

import { CatalogSourceReasons } from '@olm/api';
import { describeError, type CatalogSourceWorkload } from '@olm/core';
import { formatTime } from '@olm/go-format';
import { asString, catalogSourceOf } from './catalog-source-of.js';

/**
 * A ConfigMap catalog's part in the cluster: its ConfigMap, read on each pass. A missing one is
 * `ConfigMapError`; `status.configMapReference` follows it, and a new resourceVersion makes the
 * cached content stale.
 */
export const configMapWorkload: CatalogSourceWorkload = {
  async ensure({ source, client, now, contentChanged }) {
    const { metadata, spec, status: previous } = catalogSourceOf(source);
    const namespace = metadata?.namespace ?? '';
    const name = asString(spec?.configMap);
    let configMap;
    try {
      configMap = await client.find({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
    } catch (error) {
      return { failure: { reason: CatalogSourceReasons.ConfigMapError, message: `failed to get catalog config map ${name}: ${describeError(error)}` } };
    }
    if (!configMap) {
      return { failure: { reason: CatalogSourceReasons.ConfigMapError, message: `failed to get catalog config map ${name}: configmaps ${JSON.stringify(name)} not found` } };
    }
    const before = previous?.configMapReference;
    const resourceVersion = configMap.metadata?.resourceVersion;
    if (before?.resourceVersion !== resourceVersion) contentChanged();
    const unchanged = before?.resourceVersion === resourceVersion && before?.uid === configMap.metadata?.uid;
    return {
      status: { configMapReference: unchanged ? before : { name, namespace, uid: configMap.metadata?.uid, resourceVersion, lastUpdateTime: formatTime(now) } },
    };
  },
};

import { AvailabilityModes, ClusterCatalogConditionTypes, Kinds, type ClusterCatalog } from '@olm/api';
import type { ObjectReader } from '@olm/core';
import { labelSelectorAsSelector, type LabelSelector } from '@olm/label-selector';
import type { ServedCatalog } from './catalog-content.js';

export interface SelectedCatalog extends ServedCatalog {
  readonly priority: number;
}

/**
 * The ClusterCatalogs a ClusterExtension reads: those its `selector` matches (every one without a
 * selector, as upstream) that are Available and Serving with a base URL. Throws `LabelSelectorError`
 * for an invalid selector.
 */
export function selectCatalogs(cache: ObjectReader, selector: LabelSelector | undefined): SelectedCatalog[] {
  const matches = selector ? labelSelectorAsSelector(selector) : undefined;
  const selected: SelectedCatalog[] = [];
  for (const object of cache.list(Kinds.clusterCatalog)) {
    const catalog = object as unknown as ClusterCatalog;
    if (matches && !matches.matches(catalog.metadata.labels ?? {})) continue;
    if (catalog.spec?.availabilityMode === AvailabilityModes.unavailable) continue;
    const serving = catalog.status?.conditions?.find((condition) => condition.type === ClusterCatalogConditionTypes.serving);
    const baseUrl = catalog.status?.urls?.base;
    if (serving?.status !== 'True' || !baseUrl) continue;
    selected.push({
      name: catalog.metadata.name!,
      baseUrl,
      priority: catalog.spec?.priority ?? 0,
      contentKey: `${catalog.status?.resolvedSource?.image?.ref ?? ''}@${catalog.status?.lastUnpacked ?? ''}`,
    });
  }
  return selected;
}

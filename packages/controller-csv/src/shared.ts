import type { CachedCsv, CachedNamespaced, OLMConfig, OperatorGroup } from '@olm/api';
import { isCopied, Labels, OLMConfigName } from '@olm/api';
import type { Logger, ObjectReader } from '@olm/core';
import type { CopyDependencies } from './copies/csv-copies.js';
import type { OlmConfigDependencies } from './copies/olm-config-reconciler.js';
import type { PendingDependencies } from './csv-pending.js';
import { Kinds } from './kinds.js';
import type { HealthDependencies } from './status/csv-health.js';

/** The cached CSV: `@olm/api`'s one type for it. */
export type Csv = CachedCsv;
export type Og = CachedNamespaced<OperatorGroup>;

/**
 * Resolved options and lazily bound collaborators shared by the reconcilers: the union of what each
 * concern takes (each step is handed only its concern's type).
 */
export interface Shared extends HealthDependencies, PendingDependencies, CopyDependencies, OlmConfigDependencies {
  logger(): Logger | undefined;
}

/** The OLMConfig `cluster`, from the cache. */
export function clusterOlmConfig(cache: ObjectReader): OLMConfig | undefined {
  return cache.get(Kinds.olmConfig, OLMConfigName);
}

/**
 * The CSVs that are not copies (in a namespace, or all), from the cache's index of CSVs without the
 * `olm.copiedFrom` label: tens of thousands of copies cost nothing here.
 */
export function sourceCsvs(cache: ObjectReader, namespace?: string): Csv[] {
  const csvs = cache.list(Kinds.clusterServiceVersion, { ...(namespace === undefined ? {} : { namespace }), labelSelector: `!${Labels.copiedFrom}` });
  return csvs.filter((csv) => !isCopied(csv));
}

/** The cached namespaces, telling those being deleted. */
export function namespaceViews(cache: ObjectReader): Array<{ name: string; terminating: boolean }> {
  return cache.list(Kinds.namespace).map((namespace) => ({
    name: namespace.metadata?.name ?? '',
    terminating: namespace.status?.phase === 'Terminating',
  }));
}

/** The views of the named namespaces that exist in the cache. */
export function namespaceViewsOf(cache: ObjectReader, names: Iterable<string>): Array<{ name: string; terminating: boolean }> {
  const views: Array<{ name: string; terminating: boolean }> = [];
  for (const name of names) {
    const namespace = cache.get(Kinds.namespace, name);
    if (namespace) views.push({ name, terminating: namespace.status?.phase === 'Terminating' });
  }
  return views;
}

export function csvReference(csv: { metadata: { name: string; namespace: string } }) {
  return { ...Kinds.clusterServiceVersion, name: csv.metadata.name, namespace: csv.metadata.namespace };
}

export function ogReference(og: { metadata: { name: string; namespace: string } }) {
  return { ...Kinds.operatorGroup, name: og.metadata.name, namespace: og.metadata.namespace };
}

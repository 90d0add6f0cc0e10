import { isSemanticallyEqual } from '@olm/controller-runtime';
import { Counter, Gauge, Registry, Summary } from 'prom-client';

/** The catalog operator's Prometheus series, with upstream's names and labels. */
export interface CatalogMetrics {
  readonly registry: Registry;
  readonly catalogSourceCount: Gauge;
  readonly catalogSourceReady: Gauge<'namespace' | 'name'>;
  readonly catalogSourceSnapshots: Counter<'namespace' | 'name'>;
  readonly installPlanCount: Gauge;
  readonly subscriptionCount: Gauge;
  readonly subscriptionSync: Counter<'name' | 'installed' | 'channel' | 'package' | 'approval'>;
  readonly resolutionDuration: Summary<'outcome'>;
  readonly installPlanWarnings: Counter;
  /** `subscription_sync_total` by Subscription, dropping a Subscription's old series as upstream does. */
  readonly subscriptionSyncs: SubscriptionSyncRecorder;
}

type SubscriptionSyncLabels = Record<'name' | 'installed' | 'channel' | 'package' | 'approval', string>;

export interface SubscriptionSyncRecorder {
  /** Counts one sync; when the Subscription's labels changed (a new installed CSV, channel, …) its old series goes. */
  record(namespace: string, labels: SubscriptionSyncLabels): void;
  /** Drops the series of the namespace's Subscriptions that are not in `present` (deleted). */
  forgetMissing(namespace: string, present: ReadonlySet<string>): void;
}

/**
 * Upstream keeps one `subscription_sync_total` series per Subscription: a series whose labels no
 * longer describe the Subscription is deleted, so a dashboard sums only current installs.
 */
export function createSubscriptionSyncRecorder(counter: Counter<keyof SubscriptionSyncLabels>): SubscriptionSyncRecorder {
  const current = new Map<string, SubscriptionSyncLabels>();
  const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;
  const same = (a: SubscriptionSyncLabels, b: SubscriptionSyncLabels) => isSemanticallyEqual(a, b);
  const drop = (key: string) => {
    const labels = current.get(key);
    current.delete(key);
    // Same-named Subscriptions in two namespaces can share a series (the labels have no namespace).
    if (labels && ![...current.values()].some((other) => same(other, labels))) counter.remove(labels);
  };
  return {
    record(namespace, labels) {
      const key = keyOf(namespace, labels.name);
      const before = current.get(key);
      if (before && !same(before, labels)) drop(key);
      current.set(key, { ...labels });
      counter.inc(labels);
    },
    forgetMissing(namespace, present) {
      for (const key of [...current.keys()]) {
        if (key.startsWith(`${namespace}/`) && !present.has(key.slice(namespace.length + 1))) drop(key);
      }
    },
  };
}

/** Registers the series in `registry` (a new one by default); a second call on one registry reuses them. */
export function createCatalogMetrics(registry: Registry = new Registry()): CatalogMetrics {
  const registers = [registry];
  const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
  const subscriptionSync =
    existing<Counter<'name' | 'installed' | 'channel' | 'package' | 'approval'>>('subscription_sync_total') ??
    new Counter({ name: 'subscription_sync_total', help: 'Monotonic count of subscription syncs', labelNames: ['name', 'installed', 'channel', 'package', 'approval'] as const, registers });
  return {
    registry,
    catalogSourceCount:
      existing<Gauge>('catalog_source_count') ?? new Gauge({ name: 'catalog_source_count', help: 'Number of catalog sources', registers }),
    catalogSourceReady:
      existing<Gauge<'namespace' | 'name'>>('catalogsource_ready') ??
      new Gauge({ name: 'catalogsource_ready', help: 'State of a CatalogSource. 1 indicates that the CatalogSource is in a READY state. 0 indicates CatalogSource is in a Non READY state.', labelNames: ['namespace', 'name'] as const, registers }),
    catalogSourceSnapshots:
      existing<Counter<'namespace' | 'name'>>('catalog_source_snapshots_total') ??
      new Counter({ name: 'catalog_source_snapshots_total', help: 'The number of times the catalog operator has requested a snapshot of data from a catalog source', labelNames: ['namespace', 'name'] as const, registers }),
    installPlanCount:
      existing<Gauge>('install_plan_count') ?? new Gauge({ name: 'install_plan_count', help: 'Number of install plans', registers }),
    subscriptionCount:
      existing<Gauge>('subscription_count') ?? new Gauge({ name: 'subscription_count', help: 'Number of subscriptions', registers }),
    subscriptionSync,
    subscriptionSyncs: createSubscriptionSyncRecorder(subscriptionSync),
    resolutionDuration:
      existing<Summary<'outcome'>>('olm_resolution_duration_seconds') ??
      new Summary({
        name: 'olm_resolution_duration_seconds',
        help: 'The duration of a dependency resolution attempt',
        labelNames: ['outcome'] as const,
        percentiles: [0.9, 0.95, 0.99],
        registers,
      }),
    installPlanWarnings:
      existing<Counter>('installplan_warnings_total') ??
      new Counter({ name: 'installplan_warnings_total', help: 'monotonic count of resources that generated warnings when applied as part of an InstallPlan (for example, due to deprecation)', registers }),
  };
}

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
}

/** Registers the series in `registry` (a new one by default); a second call on one registry reuses them. */
export function createCatalogMetrics(registry: Registry = new Registry()): CatalogMetrics {
  const registers = [registry];
  const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
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
    subscriptionSync:
      existing<Counter<'name' | 'installed' | 'channel' | 'package' | 'approval'>>('subscription_sync_total') ??
      new Counter({ name: 'subscription_sync_total', help: 'Monotonic count of subscription syncs', labelNames: ['name', 'installed', 'channel', 'package', 'approval'] as const, registers }),
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

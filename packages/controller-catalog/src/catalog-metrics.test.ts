import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createCatalogMetrics } from './catalog-metrics.js';

const labels = (name: string, installed: string) => ({ name, installed, channel: 'stable', package: 'db', approval: 'Automatic' });

async function series(registry: Registry, metric: string): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((line) => line.startsWith(`${metric}{`));
}

describe('catalog metrics', () => {
  it("registers upstream's series names and label names once per registry", async () => {
    const registry = new Registry();
    const metrics = createCatalogMetrics(registry);
    expect(createCatalogMetrics(registry).subscriptionSync).toBe(metrics.subscriptionSync);
    const names = (await registry.getMetricsAsJSON()).map((metric) => metric.name).sort();
    expect(names).toEqual([
      'catalog_source_count',
      'catalog_source_snapshots_total',
      'catalogsource_ready',
      'install_plan_count',
      'installplan_warnings_total',
      'olm_resolution_duration_seconds',
      'subscription_count',
      'subscription_sync_total',
    ]);
    metrics.resolutionDuration.observe({ outcome: 'succeeded' }, 0.2);
    expect(await registry.metrics()).toContain('olm_resolution_duration_seconds{quantile="0.99",outcome="succeeded"} 0.2');
  });

  it('keeps one subscription_sync_total series per Subscription, dropping the old one when its labels change', async () => {
    const registry = new Registry();
    const { subscriptionSyncs } = createCatalogMetrics(registry);
    subscriptionSyncs.record('ns', labels('db', ''));
    subscriptionSyncs.record('ns', labels('db', ''));
    expect(await series(registry, 'subscription_sync_total')).toEqual([
      'subscription_sync_total{name="db",installed="",channel="stable",package="db",approval="Automatic"} 2',
    ]);
    subscriptionSyncs.record('ns', labels('db', 'db.v1'));
    expect(await series(registry, 'subscription_sync_total')).toEqual([
      'subscription_sync_total{name="db",installed="db.v1",channel="stable",package="db",approval="Automatic"} 1',
    ]);
  });

  it('drops the series of deleted Subscriptions, but not one a same-named Subscription elsewhere still has', async () => {
    const registry = new Registry();
    const { subscriptionSyncs } = createCatalogMetrics(registry);
    subscriptionSyncs.record('a', labels('db', 'db.v1'));
    subscriptionSyncs.record('b', labels('db', 'db.v1'));
    subscriptionSyncs.record('b', labels('cache', 'cache.v1'));
    subscriptionSyncs.forgetMissing('b', new Set(['cache']));
    expect(await series(registry, 'subscription_sync_total')).toHaveLength(2);
    subscriptionSyncs.forgetMissing('a', new Set());
    expect(await series(registry, 'subscription_sync_total')).toEqual([
      'subscription_sync_total{name="cache",installed="cache.v1",channel="stable",package="db",approval="Automatic"} 1',
    ]);
  });
});

import { Counter, Gauge, Registry } from 'prom-client';

/** upstream's olm-operator series: csv_count, csv_succeeded, csv_abnormal, csv_upgrade_count. */
export interface CsvMetrics {
  readonly registry: Registry;
  /** Records a CSV's phase (copies are ignored by the caller). */
  observe(csv: { namespace: string; name: string; version: string; phase: string; reason: string }): void;
  /** Forgets a deleted CSV's series. */
  forget(namespace: string, name: string): void;
  setCount(count: number): void;
  upgraded(): void;
}

function reuse<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

export function createCsvMetrics(registry: Registry = new Registry()): CsvMetrics {
  const registers = [registry];
  const count = reuse(registry, 'csv_count', () => new Gauge({ name: 'csv_count', help: 'Number of CSVs successfully registered', registers }));
  const succeeded = reuse(
    registry,
    'csv_succeeded',
    () => new Gauge({ name: 'csv_succeeded', help: 'Successful CSV install', labelNames: ['namespace', 'name', 'version'], registers }),
  );
  const abnormal = reuse(
    registry,
    'csv_abnormal',
    () =>
      new Gauge({
        name: 'csv_abnormal',
        help: 'CSV is not installed',
        labelNames: ['namespace', 'name', 'version', 'phase', 'reason'],
        registers,
      }),
  );
  const upgrades = reuse(
    registry,
    'csv_upgrade_count',
    () => new Counter({ name: 'csv_upgrade_count', help: 'Monotonic count of CSV upgrades', registers }),
  );
  // The labels of each CSV's current abnormal series, so the old one can be removed on change.
  const abnormalLabels = new Map<string, Record<string, string>>();
  const succeededLabels = new Map<string, Record<string, string>>();
  return {
    registry,
    observe(csv) {
      const key = `${csv.namespace}/${csv.name}`;
      const previous = abnormalLabels.get(key);
      const base = { namespace: csv.namespace, name: csv.name, version: csv.version };
      const previousSucceeded = succeededLabels.get(key);
      if (previousSucceeded && previousSucceeded.version !== csv.version) succeeded.remove(previousSucceeded);
      succeeded.set(base, csv.phase === 'Succeeded' ? 1 : 0);
      succeededLabels.set(key, base);
      if (previous) abnormal.remove(previous);
      abnormalLabels.delete(key);
      if (csv.phase !== 'Succeeded') {
        const labels = { ...base, phase: csv.phase, reason: csv.reason };
        abnormal.set(labels, 1);
        abnormalLabels.set(key, labels);
      }
    },
    forget(namespace, name) {
      const key = `${namespace}/${name}`;
      const previous = abnormalLabels.get(key);
      if (previous) abnormal.remove(previous);
      abnormalLabels.delete(key);
      const previousSucceeded = succeededLabels.get(key);
      if (previousSucceeded) succeeded.remove(previousSucceeded);
      succeededLabels.delete(key);
    },
    setCount(value) {
      count.set(value);
    },
    upgraded() {
      upgrades.inc();
    },
  };
}

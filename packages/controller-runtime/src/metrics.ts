import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { InFlightWork, WorkQueueMetrics } from './work-queue.js';

/** The Prometheus series of the runtime, named as controller-runtime names them so dashboards carry over. */
export interface RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly terminalReconcileErrors: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly leaderElectionStatus: Gauge<'name'>;
  /** Hooks for one named work queue. */
  workQueue(name: string): WorkQueueMetrics;
}

const cache = new WeakMap<Registry, RuntimeMetrics>();

/**
 * Registers (once per registry) and returns the runtime's metrics. Several managers may share a
 * registry: they share the series too, told apart by the `controller`/`name` labels.
 */
export function createRuntimeMetrics(registry: Registry = new Registry()): RuntimeMetrics {
  const existing = cache.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: RuntimeMetrics = {
    registry,
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    terminalReconcileErrors: new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60],
      registers,
    }),
    maxConcurrentReconciles: new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    }),
    leaderElectionStatus: new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'],
      registers,
    }),
    workQueue: workQueueMetrics(registers),
  };
  cache.set(registry, metrics);
  return metrics;
}

/** The `workqueue_*` series, shared by every queue; returns how one named queue reports into them. */
function workQueueMetrics(registers: Registry[]): RuntimeMetrics['workQueue'] {
  // Like controller-runtime, every queue series carries the queue name twice: as `name` and `controller`.
  const queueLabels = ['name', 'controller'] as const;
  // Powers of ten from 10 ns to 1000 s, the layout controller-runtime uses for queue timings.
  const queueBuckets = Array.from({ length: 12 }, (_, power) => Number(`1e${power - 8}`));
  const inFlightProbes = new Map<string, () => InFlightWork>();
  const queueDepth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: queueLabels, registers });
  const queueAdds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: queueLabels, registers });
  const queueLatency = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: queueLabels,
    buckets: queueBuckets,
    registers,
  });
  const workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes',
    labelNames: queueLabels,
    buckets: queueBuckets,
    registers,
  });
  // Read from the queues when scraped, so a stuck worker shows without any timer running.
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: 'Seconds of work in progress not yet observed by work_duration; a steady rise means stuck workers',
    labelNames: queueLabels,
    registers,
    collect() {
      for (const [name, probe] of inFlightProbes) this.set({ name, controller: name }, probe().unfinishedSeconds);
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds the longest running processor of the workqueue has been running',
    labelNames: queueLabels,
    registers,
    collect() {
      for (const [name, probe] of inFlightProbes) this.set({ name, controller: name }, probe().longestSeconds);
    },
  });
  const queueRetries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: queueLabels, registers });
  return (name) => {
    // Bound children: label lookups per call would dominate a fast queue.
    const labels = { name, controller: name };
    const depth = queueDepth.labels(labels);
    const adds = queueAdds.labels(labels);
    const latency = queueLatency.labels(labels);
    const work = workDuration.labels(labels);
    const retries = queueRetries.labels(labels);
    depth.set(0);
    adds.inc(0);
    retries.inc(0);
    return {
      added: () => adds.inc(),
      depth: (size) => depth.set(size),
      queued: (seconds) => latency.observe(seconds),
      worked: (seconds) => work.observe(seconds),
      retried: () => retries.inc(),
      // The latest queue of a name wins: a controller makes a new queue each time it starts leading.
      trackInFlight: (probe) => void inFlightProbes.set(name, probe),
    };
  };
}

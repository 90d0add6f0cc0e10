import { createSingleExtensionPoint } from '../kernel/extension-point.js';
import type { ObjectReader } from './reconcilers.js';

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** The part of a prom-client `Registry` plugins use; pass `registers: [registry]` to every metric. */
export interface MetricsRegistry {
  registerMetric(metric: never): void;
  getSingleMetric(name: string): unknown;
  metrics(): Promise<string>;
  readonly contentType: string;
}

export const logger = createSingleExtensionPoint<Logger>({
  id: 'olm.logger',
  description: 'the structured logger',
  hint: 'the app provides it: boot({ provide: [provision(logger, myLogger)] })',
});

export const metrics = createSingleExtensionPoint<MetricsRegistry>({
  id: 'olm.metrics',
  description: 'the Prometheus metrics registry',
  hint: 'the app provides it: boot({ provide: [provision(metrics, new Registry())] })',
});

/**
 * The informer cache the controller runtime fills for the kinds its reconcilers watch, read-only.
 */
export const informerCache = createSingleExtensionPoint<ObjectReader>({
  id: 'olm.informerCache',
  description: 'the shared informer cache of the kinds reconcilers watch',
  hint: 'boot @olm/controller-runtime, which provides it',
});

import { OLMConfigName } from '@olm/api';
import { parseGoDuration } from '@olm/go-format';
import type { CachedObject, KubeClient, Logger } from '@olm/core';
import { describeError, hasErrorCode } from '@olm/core';
import { Informer, silentLogger } from '@olm/controller-runtime';

const olmConfigKind = { apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig' } as const;

export interface OlmConfigSyncIntervalOptions {
  readonly client: KubeClient;
  /** The interval without an OLMConfig value (upstream's `--interval`). */
  readonly defaultMs: number;
  /** Called with the interval in force whenever it changes. */
  readonly onChange: (milliseconds: number) => void;
  readonly logger?: Logger;
}

/** The interval an OLMConfig asks for: its `spec.features.packageServerSyncInterval`, else the default (also for a value that does not parse, with a warning). */
export function syncIntervalOf(olmConfig: CachedObject | undefined, defaultMs: number, logger: Logger = silentLogger): number {
  const value = (olmConfig as { spec?: { features?: { packageServerSyncInterval?: unknown } } } | undefined)?.spec?.features?.packageServerSyncInterval;
  if (typeof value !== 'string' || value === '') return defaultMs;
  try {
    const milliseconds = parseGoDuration(value);
    if (milliseconds > 0) return milliseconds;
  } catch (error) {
    logger.warn('OLMConfig spec.features.packageServerSyncInterval does not parse; using the default', { value, error: describeError(error) });
    return defaultMs;
  }
  logger.warn('OLMConfig spec.features.packageServerSyncInterval is not above zero; using the default', { value });
  return defaultMs;
}

/**
 * Follows the OLMConfig named `cluster`, as upstream's packageserver does: its
 * `spec.features.packageServerSyncInterval` sets how often catalogs are re-read, the default
 * otherwise. Upstream restarts its pod on a change; here the new interval applies at once. Without
 * the OLMConfig kind (no such CRD) it keeps the default and watches nothing.
 */
export async function followOlmConfigSyncInterval(options: OlmConfigSyncIntervalOptions): Promise<{ stop(): Promise<void> }> {
  const logger = options.logger ?? silentLogger;
  try {
    await options.client.resourceFor(olmConfigKind);
  } catch (error) {
    if (!hasErrorCode(error, 'OLM_RUNTIME_UNKNOWN_KIND')) throw error;
    logger.info('the OLMConfig kind is not served; catalogs are re-read at the default interval', { intervalMs: options.defaultMs });
    return { stop: async () => {} };
  }
  let current = options.defaultMs;
  const apply = (olmConfig: CachedObject | undefined) => {
    const next = syncIntervalOf(olmConfig, options.defaultMs, logger);
    if (next === current) return;
    logger.info('catalog re-read interval changed', { intervalMs: next, from: olmConfig ? `OLMConfig ${OLMConfigName}` : 'the default' });
    current = next;
    options.onChange(next);
  };
  const isCluster = (object: CachedObject) => object.metadata?.name === OLMConfigName;
  const informer = new Informer({ client: options.client, kind: olmConfigKind, logger });
  informer.addEventHandler({
    onAdd: (object) => isCluster(object) && apply(object),
    onUpdate: (_old, object) => isCluster(object) && apply(object),
    onDelete: (object) => isCluster(object) && apply(undefined),
  });
  informer.start();
  return { stop: () => informer.stop() };
}

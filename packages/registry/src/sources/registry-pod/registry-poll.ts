import { formatGoDuration, parseGoDuration } from '@olm/go-format';

/** The CatalogSource spec fields a registry poll reads. */
export interface RegistryPollSpec {
  readonly sourceType?: string;
  readonly image?: string;
  readonly updateStrategy?: { readonly registryPoll?: { readonly interval?: string } };
}

/** Upstream's default registry poll interval, also used when the given one cannot be parsed. */
export const defaultRegistryPollInterval = 15 * 60_000;

export interface RegistryPoll {
  /** Milliseconds between polls, or undefined when the source is not polled. */
  readonly intervalMs?: number;
  /** Set when the interval could not be parsed (status reason `InvalidIntervalError`). */
  readonly invalidIntervalMessage?: string;
}

/** Only `grpc` sources with an `image` are polled; a bad interval falls back to the default and says so. */
export function registryPoll(spec: RegistryPollSpec): RegistryPoll {
  const interval = spec.updateStrategy?.registryPoll?.interval;
  if (spec.sourceType !== 'grpc' || !spec.image || interval === undefined) return {};
  try {
    const milliseconds = parseGoDuration(interval);
    if (milliseconds <= 0) throw new Error(`time: invalid duration ${JSON.stringify(interval)}`);
    return { intervalMs: milliseconds };
  } catch (error) {
    return {
      intervalMs: defaultRegistryPollInterval,
      invalidIntervalMessage: `error parsing spec.updateStrategy.registryPoll.interval. Using the default value of ${formatGoDuration(defaultRegistryPollInterval)} instead. Error: ${(error as Error).message}`,
    };
  }
}

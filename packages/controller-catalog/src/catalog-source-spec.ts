import { formatGoDuration, parseGoDuration } from '@olm/go-format';

/** The CatalogSource spec fields checked before a source is reached. */
export interface CatalogSourceSpecView {
  readonly sourceType?: string;
  readonly image?: string;
  readonly address?: string;
  readonly configMap?: string;
  readonly updateStrategy?: { readonly registryPoll?: { readonly interval?: string } };
}

/** Upstream's default registry poll interval, also used when the given one cannot be parsed. */
export const defaultRegistryPollInterval = 15 * 60_000;

/**
 * Why the spec cannot be served (status reason `SpecInvalidError`), in upstream's words, or
 * undefined. Source types added by plugins (`extraSourceTypes`) are accepted as they are.
 */
export function specInvalidReason(spec: CatalogSourceSpecView, extraSourceTypes: Iterable<string> = []): string | undefined {
  const sourceType = spec.sourceType ?? '';
  switch (sourceType) {
    case 'internal':
    case 'configmap':
      return spec.configMap ? undefined : `configmap name unset: must be set for sourcetype: ${sourceType}`;
    case 'grpc':
      return spec.image || spec.address
        ? undefined
        : `image and address unset: at least one must be set for sourcetype: ${sourceType}`;
    default:
      return new Set(extraSourceTypes).has(sourceType) ? undefined : `unknown sourcetype: ${sourceType}`;
  }
}

export interface RegistryPoll {
  /** Milliseconds between polls, or undefined when the source is not polled. */
  readonly intervalMs?: number;
  /** Set when the interval could not be parsed (status reason `InvalidIntervalError`). */
  readonly invalidIntervalMessage?: string;
}

/** Only `grpc` sources with an `image` are polled; a bad interval falls back to the default and says so. */
export function registryPoll(spec: CatalogSourceSpecView): RegistryPoll {
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

/** Upstream's registry Service name for a catalog: the CatalogSource name with dots replaced. */
export function registryServiceName(catalogSourceName: string): string {
  return catalogSourceName.replaceAll('.', '-');
}

import { bundleUnpackMinRetryIntervalAnnotation, bundleUnpackTimeoutAnnotation, OlmError } from '@olm/core';
import { parseGoDuration } from '@olm/go-format';

export interface BundleUnpackSettings {
  /** Overrides the controller's unpack timeout; 0 means none. Unset when the annotation is absent or negative. */
  readonly timeoutMs?: number;
  /** How long a failed unpack is reported before it is tried again. Unset when the annotation is absent or not positive. */
  readonly minRetryIntervalMs?: number;
}

/**
 * The unpack settings a namespace's OperatorGroup gives with upstream's annotations. A value that is
 * not a Go duration fails with upstream's message, as it fails the namespace's sync there.
 */
export function bundleUnpackSettings(operatorGroup: { metadata?: { name?: string; annotations?: Readonly<Record<string, string>> } } | undefined): BundleUnpackSettings {
  const annotations = operatorGroup?.metadata?.annotations ?? {};
  const read = (key: string, what: string): number | undefined => {
    const text = annotations[key];
    if (text === undefined) return undefined;
    try {
      return parseGoDuration(text);
    } catch (error) {
      throw new OlmError(
        'OLM_CATALOG_INVALID_UNPACK_ANNOTATION',
        `failed to parse ${what} annotation(${key}: ${text}): ${(error as Error).message}; fix the annotation of OperatorGroup ${operatorGroup?.metadata?.name ?? ''} (a Go duration such as 10m or 1h30m)`,
      );
    }
  };
  const timeoutMs = read(bundleUnpackTimeoutAnnotation, 'unpack timeout');
  const minRetryIntervalMs = read(bundleUnpackMinRetryIntervalAnnotation, 'unpack retry');
  return {
    ...(timeoutMs !== undefined && timeoutMs >= 0 ? { timeoutMs } : {}),
    ...(minRetryIntervalMs !== undefined && minRetryIntervalMs > 0 ? { minRetryIntervalMs } : {}),
  };
}

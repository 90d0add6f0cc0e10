import { OlmError } from '@olm/core';
import { RuntimeErrorCodes } from './errors.js';

/**
 * The namespaces an informer or cache is limited to, from `namespace` or `namespaces`; empty for all.
 * Throws on both at once and on an empty name (an empty list already means all namespaces).
 */
export function namespacesToWatch(options: { readonly namespace?: string; readonly namespaces?: readonly string[] }): readonly string[] {
  if (options.namespace !== undefined && options.namespaces !== undefined) {
    throw new OlmError(RuntimeErrorCodes.invalidArgument, 'give namespace (one) or namespaces (a list), not both');
  }
  const namespaces = options.namespaces ?? (options.namespace !== undefined ? [options.namespace] : []);
  if (namespaces.some((namespace) => namespace === '')) {
    throw new OlmError(RuntimeErrorCodes.invalidArgument, 'an empty namespace name was given; leave the namespaces out to watch all of them');
  }
  return [...new Set(namespaces)];
}

import { OlmError } from '@olm/core';
import { LabelSelectorError, parseLabelSelector as parseSelector, type Selector } from '@olm/label-selector';
import { RuntimeErrorCodes } from './errors.js';

/**
 * A `labelSelector` a controller lists with (`a=b,c!=d,e in (f,g),!h`, parsed by `@olm/label-selector`);
 * one that does not parse throws `OlmError` with the `invalidArgument` code and kube-apiserver's message.
 */
export function parseLabelSelector(selector: string | undefined): Selector {
  try {
    return parseSelector(selector);
  } catch (error) {
    if (!(error instanceof LabelSelectorError)) throw error;
    throw new OlmError(RuntimeErrorCodes.invalidArgument, `label selector ${JSON.stringify(selector)} is invalid: ${error.message}`, { details: { selector } });
  }
}

import { LabelSelectorError, parseLabelSelector as parseSelector, type Selector } from '@olm/label-selector';
import { badRequest } from './errors.js';

/** The `labelSelector` parameter of a request; a selector that does not parse is a 400 BadRequest, as kube-apiserver answers. */
export function parseLabelSelector(text: string | undefined | null): Selector {
  try {
    return parseSelector(text);
  } catch (error) {
    if (error instanceof LabelSelectorError) throw badRequest(error.message);
    throw error;
  }
}

import { OlmError } from '@olm/core';
import type { RevisionApplier, RevisionApplierOptions } from './types.js';

export function createRevisionApplier(options: RevisionApplierOptions): RevisionApplier {
  const notYet = async (): Promise<never> => {
    throw new OlmError('OLM_REVISION_NOT_IMPLEMENTED', `revision applier (${options.fieldManager}): not implemented yet`);
  };
  return { preflight: notYet, apply: notYet, installed: notYet, uninstall: notYet };
}

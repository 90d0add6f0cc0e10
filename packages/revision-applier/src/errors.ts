import { OlmError } from '@olm/core';

/** Stable codes of the errors this package throws; recognise them with `hasErrorCode`, never `instanceof`. */
export const RevisionErrorCodes = {
  /** Bad input: an owner without name or uid, a ServiceAccount without namespace or name, bad options. */
  invalidInput: 'OLM_REVISION_INVALID_INPUT',
  /** A revision record would exceed `maxRevisionBytes`, or too many revisions are still in progress (`maxRevisions`). */
  limitExceeded: 'OLM_REVISION_LIMIT_EXCEEDED',
  /** An object to apply exists and belongs to another ClusterExtension, or to no ClusterExtension. */
  objectCollision: 'OLM_REVISION_OBJECT_COLLISION',
  /** A stored revision record cannot be read (corrupt, too large once decompressed, or not ours). */
  invalidRecord: 'OLM_REVISION_INVALID_RECORD',
} as const;

export type RevisionErrorCode = (typeof RevisionErrorCodes)[keyof typeof RevisionErrorCodes];

export function revisionError(code: RevisionErrorCode, message: string, details: Record<string, unknown> = {}): OlmError {
  return new OlmError(code, message, { details });
}

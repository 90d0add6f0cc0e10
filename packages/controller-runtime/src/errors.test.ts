import { ApiException } from '@kubernetes/client-node';
import { hasErrorCode, OlmError } from '@olm/core';
import { describe, expect, it } from 'vitest';
import {
  apiStatusCode,
  apiStatusReason,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  isTerminalError,
  RuntimeErrorCodes,
  TerminalError,
} from './errors.js';

describe('errors', () => {
  it('TerminalError carries a stable code and is recognised by it, not by class', () => {
    const error = new TerminalError('bad spec', { details: { field: 'spec.x' } });
    expect(hasErrorCode(error, RuntimeErrorCodes.terminal)).toBe(true);
    expect(error.details).toEqual({ field: 'spec.x' });
    expect(isTerminalError(Object.assign(new Error('copy'), { code: 'OLM_RUNTIME_TERMINAL' }))).toBe(true);
    expect(isTerminalError(new Error('plain'))).toBe(false);
  });

  it('reads status codes and reasons from our errors, client-node ApiExceptions and watch errors', () => {
    const ours = new OlmError(RuntimeErrorCodes.kubeApi, 'x', { details: { statusCode: 409, reason: 'AlreadyExists' } });
    expect(isAlreadyExists(ours)).toBe(true);
    expect(isConflict(ours)).toBe(false);
    const theirs = new ApiException(409, 'Conflict', JSON.stringify({ kind: 'Status', reason: 'Conflict', code: 409 }), {});
    expect(apiStatusCode(theirs)).toBe(409);
    expect(apiStatusReason(theirs)).toBe('Conflict');
    expect(isConflict(theirs)).toBe(true);
    expect(isGone(Object.assign(new Error('Gone'), { statusCode: 410 }))).toBe(true);
    expect(isNotFound(new ApiException(404, 'nf', '', {}))).toBe(true);
    expect(apiStatusCode('nope')).toBeUndefined();
  });
});

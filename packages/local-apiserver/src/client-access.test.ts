import { describe, expect, it } from 'vitest';
import { checkClientAccess, isLoopbackAddress } from './client-access.js';
import { ApiError } from './errors.js';

function outcome(remote: string | undefined, authorization: string | undefined, token: string | undefined): string {
  try {
    checkClientAccess(remote, authorization, token);
    return 'served';
  } catch (error) {
    return error instanceof ApiError ? `${error.code} ${error.reason}` : String(error);
  }
}

describe('client access', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['192.0.2.7', false],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['fd00::2', false],
    ['1270::1', false],
    [undefined, false],
  ])('%s is loopback: %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });

  it('serves only loopback clients when no token is configured', () => {
    expect(outcome('127.0.0.1', undefined, undefined)).toBe('served');
    expect(outcome('::1', 'Bearer anything', undefined)).toBe('served');
    expect(outcome('192.0.2.7', undefined, undefined)).toBe('403 Forbidden');
    expect(outcome('192.0.2.7', 'Bearer guessed', undefined)).toBe('403 Forbidden');
  });

  it('requires the bearer token from every client, loopback included, when one is configured', () => {
    expect(outcome('192.0.2.7', 'Bearer t0ken', 't0ken')).toBe('served');
    expect(outcome('127.0.0.1', 'Bearer t0ken', 't0ken')).toBe('served');
    expect(outcome('127.0.0.1', undefined, 't0ken')).toBe('401 Unauthorized');
    expect(outcome('192.0.2.7', 'Bearer t0ke', 't0ken')).toBe('401 Unauthorized');
    expect(outcome('192.0.2.7', 'Basic t0ken', 't0ken')).toBe('401 Unauthorized');
  });
});

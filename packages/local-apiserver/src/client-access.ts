import { timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';

/**
 * Who may talk to the server (one admin user, no RBAC): with a token configured, whoever sends
 * `Authorization: Bearer <token>`; without one, only clients on a loopback address.
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

function sameSecret(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Throws 401 Unauthorized (wrong or missing token) or 403 Forbidden (non-loopback client, no token configured). */
export function checkClientAccess(remoteAddress: string | undefined, authorization: string | undefined, token: string | undefined): void {
  if (token !== undefined) {
    if (!sameSecret(authorization ?? '', `Bearer ${token}`)) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
    return;
  }
  if (!isLoopbackAddress(remoteAddress)) {
    throw new ApiError(403, 'Forbidden', 'forbidden: requests from non-loopback addresses are refused unless the server is started with a token');
  }
}

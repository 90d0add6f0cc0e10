import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError, hasErrorCode, OlmError } from '@olm/core';

/** What the page gets for a failed call: the cluster's own status, reason and message when the cluster refused. */
export interface ProblemBody {
  readonly status: number;
  readonly reason: string;
  readonly message: string;
}

export const ConsoleErrorCodes = {
  badRequest: 'OLM_CONSOLE_BAD_REQUEST',
  tooLarge: 'OLM_CONSOLE_REQUEST_TOO_LARGE',
  busy: 'OLM_CONSOLE_TOO_MANY_STREAMS',
} as const;

const securityHeaders = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // Nothing is fetched from elsewhere; the page may not be framed (clickjacking of Approve).
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
};

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...securityHeaders, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

export function sendBody(response: ServerResponse, status: number, contentType: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...securityHeaders, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

export function badRequest(message: string): OlmError {
  return new OlmError(ConsoleErrorCodes.badRequest, message, { details: { statusCode: 400, reason: 'BadRequest' } });
}

/**
 * The page's view of an error: a refusal of the cluster keeps its status code, reason and message
 * (a 403 stays the API server's 403, with its words); a kind the cluster does not serve is a 404
 * that says so; the console's own refusals carry their status; anything else is a 502 (the cluster
 * could not be reached).
 */
export function problemOf(error: unknown): ProblemBody {
  const details = (error as { details?: { statusCode?: unknown; reason?: unknown; status?: { message?: unknown; reason?: unknown } } }).details;
  if (typeof details?.statusCode === 'number') {
    const message = typeof details.status?.message === 'string' ? details.status.message : describeError(error);
    const reason = typeof details.status?.reason === 'string' ? details.status.reason : typeof details.reason === 'string' ? details.reason : 'Error';
    return { status: details.statusCode, reason, message };
  }
  if (hasErrorCode(error, 'OLM_RUNTIME_UNKNOWN_KIND')) return { status: 404, reason: 'NotFound', message: `the cluster does not serve this API: ${describeError(error)}` };
  return { status: 502, reason: 'BadGateway', message: `the cluster could not be asked: ${describeError(error)}` };
}

export function sendProblem(response: ServerResponse, problem: ProblemBody): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  sendJson(response, problem.status, problem);
}

/** A JSON request body of at most `maxBytes` bytes, refused with 413 past it (before reading the rest). */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const declared = Number(request.headers['content-length'] ?? 0);
  const tooLarge = () =>
    new OlmError(ConsoleErrorCodes.tooLarge, `the request body is larger than ${maxBytes} bytes (the console's maxBodyBytes); send less`, {
      details: { statusCode: 413, reason: 'RequestEntityTooLarge' },
    });
  if (declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  if (size === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw badRequest(`the request body is not JSON: ${describeError(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('the request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** A required string field of a request (query or body), with a message naming it. */
export function requiredString(values: Record<string, unknown> | URLSearchParams, name: string): string {
  const value = values instanceof URLSearchParams ? values.get(name) : values[name];
  if (typeof value !== 'string' || value === '') throw badRequest(`"${name}" is required`);
  if (value.length > 253) throw badRequest(`"${name}" is longer than 253 characters, the longest Kubernetes name`);
  return value;
}

export function optionalString(values: Record<string, unknown> | URLSearchParams, name: string): string | undefined {
  const value = values instanceof URLSearchParams ? values.get(name) : values[name];
  if (value === undefined || value === null || value === '') return undefined;
  return requiredString(values, name);
}

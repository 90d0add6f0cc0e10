import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError, type KubeClient, type Logger } from '@olm/core';
import { StatusError } from '../status-error.js';
import { requestAttributes } from './request-attributes.js';
import { authenticateRequestHeader } from './request-header-authenticator.js';
import type { RequestHeaderConfig } from './request-header-config.js';
import { ReviewCache, TooManyPendingReviews } from './review-cache.js';
import { forbidden, reviewAccess, type AccessDecision } from './subject-access-review.js';
import { bearerToken, reviewToken, type TokenReviewAnswer } from './token-review.js';
import { anonymousUser, type RequestUser } from './user.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface DelegatedAccessOptions {
  /** Sends the TokenReviews and SubjectAccessReviews (needs `system:auth-delegator`). */
  readonly client: KubeClient;
  /** The front proxy's settings in force (from `extension-apiserver-authentication`), if any. */
  readonly requestHeader: () => RequestHeaderConfig | undefined;
  /** Refuses a request whose `Host` does not name this server: the Status to answer, or undefined. */
  readonly hostCheck: (host: string | undefined) => { code: number; toStatus(): object } | undefined;
  /** Requests without credentials act as `system:anonymous` (then authorized like anyone); default false: 401. */
  readonly anonymous?: boolean;
  /** How long review answers are reused; default 10 s (kube's delegated authn/authz cache TTLs). */
  readonly cacheTtlMs?: number;
  /** Reviews waiting for the API server at most, tokens and access checks each; default 256. */
  readonly maxPendingReviews?: number;
  /** How long one review may take; default 10 s. */
  readonly reviewTimeoutMs?: number;
  readonly logger: Logger;
}

/** kube's `--authorization-always-allow-paths` defaults: health is served to anyone (probes carry no credentials). */
const alwaysAllowedPaths = new Set(['/healthz', '/livez', '/readyz']);
const maxCachedAnswers = 4096;

const unauthorized = (): StatusError => new StatusError(401, 'Unauthorized', 'Unauthorized');

function send(response: ServerResponse, error: StatusError, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(error.toStatus());
  response.writeHead(error.code, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  response.end(text);
}

/**
 * The front of the packageserver, as k8s.io/apiserver's delegated authentication and authorization
 * put it before an aggregated API server: the Host check; then who is asking: the user a trusted
 * front proxy (client certificate signed by the request-header CA) names in its headers, else the
 * bearer token's user per a TokenReview, else anonymous if allowed, else 401; then whether they may
 * (a SubjectAccessReview), else 403. Health paths skip both.
 */
export function withDelegatedAccess(next: Handler, options: DelegatedAccessOptions): Handler {
  const ttlMs = options.cacheTtlMs ?? 10_000;
  const maxPending = options.maxPendingReviews ?? 256;
  const timeoutMs = options.reviewTimeoutMs ?? 10_000;
  const tokens = new ReviewCache<TokenReviewAnswer>({ ttlMs, maxEntries: maxCachedAnswers, maxPending, pendingOption: 'maxPendingReviews' });
  const decisions = new ReviewCache<AccessDecision>({ ttlMs, maxEntries: maxCachedAnswers, maxPending, pendingOption: 'maxPendingReviews' });

  const authenticate = async (request: IncomingMessage): Promise<RequestUser | undefined> => {
    const proxied = authenticateRequestHeader(request, options.requestHeader());
    const token = bearerToken(request.headers.authorization);
    // The credential is used up here: nothing further on needs it.
    delete request.headers.authorization;
    if (proxied) return proxied;
    if (token !== undefined) {
      try {
        const answer = await reviewToken(options.client, tokens, token, timeoutMs);
        if ('user' in answer) return answer.user;
        options.logger.debug('bearer token not accepted', { error: answer.error });
      } catch (error) {
        if (error instanceof TooManyPendingReviews) throw error;
        options.logger.warn('cannot review a bearer token (TokenReview failed); the request is unauthenticated', { error: describeError(error) });
      }
      return undefined;
    }
    return options.anonymous ? anonymousUser : undefined;
  };

  const admit = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const user = await authenticate(request);
    if (!user) return send(response, unauthorized());
    const attributes = requestAttributes(request.method ?? 'GET', request.url ?? '/');
    let decision: AccessDecision;
    try {
      decision = await reviewAccess(options.client, decisions, user, attributes, timeoutMs);
    } catch (error) {
      if (error instanceof TooManyPendingReviews) throw error;
      return send(response, new StatusError(500, 'InternalError', `Internal error occurred: cannot review access (SubjectAccessReview): ${describeError(error)}`));
    }
    if (!decision.allowed) return send(response, forbidden(user, attributes, decision.reason));
    next(request, response);
  };

  return (request, response) => {
    const refused = options.hostCheck(request.headers.host);
    if (refused) {
      const text = JSON.stringify(refused.toStatus());
      response.writeHead(refused.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      response.end(text);
      return;
    }
    const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
    if (alwaysAllowedPaths.has(path)) return next(request, response);
    admit(request, response).catch((error: unknown) => {
      if (response.headersSent) return response.destroy();
      if (error instanceof TooManyPendingReviews) {
        return send(response, new StatusError(429, 'TooManyRequests', error.message, { retryAfterSeconds: 1 }), { 'Retry-After': '1' });
      }
      send(response, new StatusError(500, 'InternalError', `Internal error occurred: ${describeError(error)}`));
    });
  };
}

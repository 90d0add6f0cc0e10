import type { KubeClient } from '@olm/core';
import type { ReviewCache } from './review-cache.js';
import { authenticated, type RequestUser } from './user.js';

/** The token of `Bearer <token>` (scheme case-insensitive, as kube), or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const parts = (authorization ?? '').trim().split(/\s+/);
  if (parts.length !== 2 || parts[0]?.toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

export type TokenReviewAnswer = { readonly user: RequestUser } | { readonly error: string };

/**
 * Asks the API server who a bearer token belongs to (a TokenReview), as k8s.io/apiserver's
 * delegated token authenticator does; answers, positive and negative, are cached.
 */
export function reviewToken(client: KubeClient, cache: ReviewCache<TokenReviewAnswer>, token: string, timeoutMs: number): Promise<TokenReviewAnswer> {
  return cache.get(token, async () => {
    const review = (await client.request({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      signal: AbortSignal.timeout(timeoutMs),
    })) as { status?: { authenticated?: boolean; error?: string; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } } };
    const status = review.status ?? {};
    const user = status.user;
    if (status.authenticated !== true || !user?.username) return { error: status.error || 'the token is not valid' };
    return {
      user: authenticated({
        username: user.username,
        ...(user.uid ? { uid: user.uid } : {}),
        groups: user.groups ?? [],
        ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
      }),
    };
  });
}

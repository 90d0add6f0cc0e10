import { createHash } from 'node:crypto';
import type { JsonObject } from '../kube-object.js';
import type { JwtSigner } from './jwt-signer.js';
import { apiAudiences, validateServiceAccountToken, type ObjectLookup, type TokenValidation } from './service-account-tokens.js';
import { adminUser, withAuthenticatedGroup, type UserInfo } from './user-info.js';

/** A user of a static token, as a line of kube-apiserver's `--token-auth-file`. */
export interface StaticTokenUser {
  readonly token: string;
  readonly name: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
}

/**
 * Bearer-token authentication: the admin token, static token users, and ServiceAccount tokens
 * (bound and legacy). A token nobody recognises is unauthenticated (401); a request without a
 * token is anonymous when the server allows it (access control decides, as kube-apiserver's
 * `--anonymous-auth`).
 */
export class Authenticator {
  /** Static tokens by their SHA-256, so a lookup takes the same time whatever the guess. */
  private readonly staticTokens = new Map<string, UserInfo>();
  /**
   * Claims of tokens whose signature checked out, so that a client's every request does not pay an
   * ECDSA verification (kube-apiserver caches token authentication too). The claims are still
   * validated each time: expiry, audiences, and the account and bound object being there.
   */
  private readonly verifiedClaims = new Map<string, JsonObject>();

  constructor(
    adminToken: string,
    users: readonly StaticTokenUser[],
    private readonly signer: JwtSigner,
    private readonly objects: ObjectLookup,
  ) {
    this.staticTokens.set(digest(adminToken), adminUser);
    for (const user of users) {
      this.staticTokens.set(digest(user.token), {
        username: user.name,
        ...(user.uid !== undefined ? { uid: user.uid } : {}),
        groups: withAuthenticatedGroup(user.groups ?? []),
      });
    }
  }

  /**
   * Whether the header carries a bearer token (kube-apiserver's token authenticator ignores other
   * schemes and an empty token, so such requests are anonymous rather than refused).
   */
  presentsToken(authorization: string | undefined): boolean {
    return bearerToken(authorization) !== undefined;
  }

  /** The user of an `Authorization` header value, or undefined (401, or anonymous without a token). */
  authenticateHeader(authorization: string | undefined): UserInfo | undefined {
    const token = bearerToken(authorization);
    if (token === undefined) return undefined;
    const result = this.authenticateToken(token);
    return 'user' in result ? result.user : undefined;
  }

  /** What TokenReview reports: the user, or why the token is not accepted for these audiences. */
  authenticateToken(token: string, audiences: readonly string[] = apiAudiences): TokenValidation {
    const user = this.staticTokens.get(digest(token));
    if (user) {
      // Static tokens carry no audience: they are good for the API server's own audiences only.
      const matched = audiences.filter((audience) => apiAudiences.includes(audience));
      return matched.length > 0 ? { user, audiences: matched } : { error: `the token is valid for this API server only (audiences ${JSON.stringify(apiAudiences)})` };
    }
    const claims = this.verifiedClaims.get(token) ?? this.verify(token);
    if (!claims) return { error: 'invalid bearer token' };
    return validateServiceAccountToken(token, claims, this.objects, audiences);
  }

  private verify(token: string): JsonObject | undefined {
    const claims = this.signer.verify(token);
    if (!claims) return undefined;
    // Oldest first out: a Map iterates in insertion order.
    if (this.verifiedClaims.size >= maximumCachedTokens) this.verifiedClaims.delete(this.verifiedClaims.keys().next().value ?? '');
    this.verifiedClaims.set(token, claims);
    return claims;
  }
}

const maximumCachedTokens = 4096;

/** The token of `Bearer <token>` (scheme case-insensitive, as kube-apiserver), or undefined. */
function bearerToken(authorization: string | undefined): string | undefined {
  const parts = (authorization ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1] ?? '';
  return token === '' ? undefined : token;
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64');
}

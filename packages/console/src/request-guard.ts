import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The cookie that carries the per-run token once the printed URL was opened. */
export const tokenCookie = 'olm_console_token';

/** A refused request: the HTTP status and a sentence saying what to do. */
export interface Refusal {
  readonly status: number;
  readonly reason: string;
  readonly message: string;
}

/** A fresh token for one run of the console: 32 random bytes, URL-safe. */
export function newConsoleToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The checks that keep other web pages from using the console, and so the user's credentials:
 * - Host must name the console itself (127.0.0.1:PORT or localhost:PORT): a page served by another
 *   name that resolves to 127.0.0.1 (DNS rebinding) sends its own name;
 * - every API call carries the per-run token in the SameSite=Strict cookie (or an
 *   `Authorization: Bearer` header for scripts), which another site cannot read or send;
 * - a request that says where it comes from (Origin) must come from the console's own origin: other
 *   servers on 127.0.0.1 are the same *site*, so SameSite alone would let them through.
 */
export class RequestGuard {
  private readonly hosts: ReadonlySet<string>;
  private readonly origins: ReadonlySet<string>;
  private readonly expected: Buffer;

  constructor(
    readonly port: number,
    private readonly token: string,
  ) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    this.origins = new Set([...this.hosts].map((host) => `http://${host}`));
    this.expected = Buffer.from(token);
  }

  /** The Host and Origin checks, for every request (the page and its script too). */
  checkOrigin(request: IncomingMessage): Refusal | undefined {
    const host = (request.headers.host ?? '').toLowerCase();
    if (!this.hosts.has(host)) {
      return {
        status: 403,
        reason: 'Forbidden',
        message: `host "${host || '(none)'}" is not this console's: open http://127.0.0.1:${this.port}/ (requests naming another host are refused, against DNS rebinding)`,
      };
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase())) {
      return { status: 403, reason: 'Forbidden', message: `requests from ${origin} are refused: only pages of this console (http://${host}) may call it` };
    }
    return undefined;
  }

  /** Whether the request carries this run's token (cookie or bearer header). */
  hasToken(request: IncomingMessage): boolean {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    return this.matches(bearer) || this.matches(cookieValue(request.headers.cookie, tokenCookie));
  }

  /** Whether `candidate` (e.g. the `token` query parameter of the printed URL) is this run's token. */
  matches(candidate: string | undefined | null): boolean {
    if (!candidate) return false;
    const given = Buffer.from(candidate);
    return given.length === this.expected.length && timingSafeEqual(given, this.expected);
  }

  /** The Set-Cookie that hands the token to the page: not readable by scripts, never sent by other sites. */
  tokenCookieHeader(): string {
    return `${tokenCookie}=${this.token}; HttpOnly; SameSite=Strict; Path=/`;
  }

  tokenRefusal(): Refusal {
    return {
      status: 401,
      reason: 'Unauthorized',
      message: 'this console needs the token of its printed URL: open the URL that `olm console` printed (http://127.0.0.1:PORT/?token=...)',
    };
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

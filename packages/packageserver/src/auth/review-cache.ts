import { createHash } from 'node:crypto';

export interface ReviewCacheOptions {
  /** How long an answer is reused (kube's delegated authn/authz: 10 s). */
  readonly ttlMs: number;
  /** Answers kept at most; the oldest go first. */
  readonly maxEntries: number;
  /** Reviews waiting for the API server at most, all keys together; more fail at once. */
  readonly maxPending: number;
  /** Names the option that raises `maxPending`, for the error. */
  readonly pendingOption: string;
}

/** More reviews are waiting than `maxPending` allows: the caller answers 429. */
export class TooManyPendingReviews extends Error {
  constructor(
    readonly limit: number,
    option: string,
  ) {
    super(`too many requests are waiting for the API server to review their credentials (limit ${limit}, option ${option}); retry shortly`);
    this.name = 'TooManyPendingReviews';
  }
}

/**
 * The answers of TokenReviews and SubjectAccessReviews, reused for a short while as
 * k8s.io/apiserver's delegated authenticator and authorizer cache them, so that a client's every
 * request does not cost the API server a review. Keys are hashed (a token never sits in memory as a
 * key); identical reviews in flight share one call; memory and waiting calls are bounded in total.
 */
export class ReviewCache<T> {
  private readonly answers = new Map<string, { value: T; expires: number }>();
  private readonly pending = new Map<string, Promise<T>>();

  constructor(private readonly options: ReviewCacheOptions) {}

  async get(key: string, review: () => Promise<T>): Promise<T> {
    const digest = createHash('sha256').update(key).digest('base64');
    const cached = this.answers.get(digest);
    if (cached && cached.expires > Date.now()) return cached.value;
    if (cached) this.answers.delete(digest);
    const inFlight = this.pending.get(digest);
    if (inFlight) return inFlight;
    if (this.pending.size >= this.options.maxPending) throw new TooManyPendingReviews(this.options.maxPending, this.options.pendingOption);
    const call = review()
      .then((value) => {
        this.remember(digest, value);
        return value;
      })
      .finally(() => this.pending.delete(digest));
    this.pending.set(digest, call);
    return call;
  }

  private remember(digest: string, value: T): void {
    if (this.answers.size >= this.options.maxEntries) this.answers.delete(this.answers.keys().next().value ?? '');
    this.answers.set(digest, { value, expires: Date.now() + this.options.ttlMs });
  }
}

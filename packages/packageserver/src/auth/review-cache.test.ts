import { describe, expect, it } from 'vitest';
import { ReviewCache, TooManyPendingReviews } from './review-cache.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

describe('ReviewCache', () => {
  it('shares one review between identical requests in flight, then reuses its answer', async () => {
    const cache = new ReviewCache<string>({ ttlMs: 60_000, maxEntries: 10, maxPending: 10, pendingOption: 'maxPendingReviews' });
    const answer = deferred<string>();
    let reviews = 0;
    const review = () => {
      reviews += 1;
      return answer.promise;
    };
    const first = cache.get('token', review);
    const second = cache.get('token', review);
    answer.resolve('alice');
    expect(await Promise.all([first, second])).toEqual(['alice', 'alice']);
    expect(await cache.get('token', review)).toBe('alice');
    expect(reviews).toBe(1);
  });

  it('refuses more waiting reviews than maxPending, all keys together, naming the option', async () => {
    const cache = new ReviewCache<string>({ ttlMs: 60_000, maxEntries: 10, maxPending: 2, pendingOption: 'maxPendingReviews' });
    const held = deferred<string>();
    const waiting = [cache.get('a', () => held.promise), cache.get('b', () => held.promise)];
    const refused = cache.get('c', () => held.promise);
    await expect(refused).rejects.toBeInstanceOf(TooManyPendingReviews);
    await expect(refused).rejects.toThrow('limit 2, option maxPendingReviews');
    held.resolve('done');
    await Promise.all(waiting);
    // Answered reviews no longer count.
    expect(await cache.get('c', async () => 'carol')).toBe('carol');
  });

  it('keeps at most maxEntries answers, the oldest going first, and reviews again once one expired', async () => {
    const cache = new ReviewCache<string>({ ttlMs: 60_000, maxEntries: 2, maxPending: 10, pendingOption: 'maxPendingReviews' });
    const reviewed: string[] = [];
    const review = (key: string) => async () => {
      reviewed.push(key);
      return key;
    };
    for (const key of ['a', 'b', 'c', 'b', 'a']) await cache.get(key, review(key));
    expect(reviewed).toEqual(['a', 'b', 'c', 'a']);
    const expiring = new ReviewCache<string>({ ttlMs: 0, maxEntries: 2, maxPending: 10, pendingOption: 'maxPendingReviews' });
    await expiring.get('a', review('a'));
    await new Promise((resolve) => setTimeout(resolve, 2));
    await expiring.get('a', review('a'));
    expect(reviewed.slice(4)).toEqual(['a', 'a']);
  });

  it('does not keep a failed review', async () => {
    const cache = new ReviewCache<string>({ ttlMs: 60_000, maxEntries: 2, maxPending: 10, pendingOption: 'maxPendingReviews' });
    await expect(cache.get('a', async () => Promise.reject(new Error('connection refused')))).rejects.toThrow('connection refused');
    expect(await cache.get('a', async () => 'alice')).toBe('alice');
  });
});

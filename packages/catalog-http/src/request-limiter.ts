/** How many requests may be served at once, in total and per client address. */
export interface RequestLimits {
  readonly maxInFlight: number;
  readonly maxInFlightPerClient: number;
}

export type Admission = { readonly admitted: true; readonly release: () => void } | { readonly admitted: false; readonly limit: keyof RequestLimits };

/**
 * Counts requests in flight so that one client streaming the catalog many times over cannot hold
 * every slot: past either limit a request is refused at once (429), never queued.
 */
export class RequestLimiter {
  #total = 0;
  readonly #perClient = new Map<string, number>();

  constructor(readonly limits: RequestLimits) {}

  admit(client: string): Admission {
    const ofClient = this.#perClient.get(client) ?? 0;
    if (ofClient >= this.limits.maxInFlightPerClient) return { admitted: false, limit: 'maxInFlightPerClient' };
    if (this.#total >= this.limits.maxInFlight) return { admitted: false, limit: 'maxInFlight' };
    this.#total += 1;
    this.#perClient.set(client, ofClient + 1);
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        this.#total -= 1;
        const left = (this.#perClient.get(client) ?? 1) - 1;
        if (left === 0) this.#perClient.delete(client);
        else this.#perClient.set(client, left);
      },
    };
  }

  get inFlight(): number {
    return this.#total;
  }
}

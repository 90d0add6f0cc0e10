import type { ServerResponse } from 'node:http';
import { Kinds } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import type { ObjectKind, WatchEvent } from '@olm/core';
import { describeError } from '@olm/core';
import { sendJson } from './http-replies.js';

export interface WatchRelayLimits {
  /** Most event streams open at once, across every tab (each holds a few watches on the cluster). */
  readonly maxStreams: number;
  /** Most bytes queued for one slow page before its stream is closed (it reconnects and reloads). */
  readonly maxBufferedBytes: number;
}

/** The kinds whose changes a page hears about: those of a namespace, and the catalogs of every namespace. */
const namespacedKinds: readonly ObjectKind[] = [Kinds.subscription, Kinds.installPlan, Kinds.clusterServiceVersion];
const clusterWideKinds: readonly ObjectKind[] = [Kinds.catalogSource];
const maxRetryDelayMs = 30_000;
const keepAliveMs = 15_000;

/**
 * Relays the cluster's watches to a page as Server-Sent Events. A page gets only "this object
 * changed" notes (kind, type, namespace, name), never the objects, and fetches what it shows again:
 * messages stay small, so a slow page's queue is bounded by `maxBufferedBytes`, after which its stream
 * is closed and the browser's EventSource reconnects. Watches run with the user's identity; a watch
 * that ends is opened again with backoff; one the cluster refuses (403) is reported once, not retried.
 */
export class WatchRelay {
  private open = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly limits: WatchRelayLimits,
  ) {}

  get openStreams(): number {
    return this.open;
  }

  stream(response: ServerResponse, namespace: string): void {
    if (this.open >= this.limits.maxStreams) {
      sendJson(response, 429, {
        status: 429,
        reason: 'TooManyRequests',
        message: `${this.open} live-update streams are open (the console's limit, --max-event-streams ${this.limits.maxStreams}); close other console tabs`,
      });
      return;
    }
    this.open += 1;
    response.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', Connection: 'keep-alive' });
    response.write('retry: 3000\n\n');
    const stops: Array<() => void> = [];
    let closed = false;
    const send = (event: string, data: unknown) => {
      if (closed) return;
      response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (response.writableLength > this.limits.maxBufferedBytes) response.destroy();
    };
    const keepAlive = setInterval(() => !closed && response.write(': keep-alive\n\n'), keepAliveMs);
    response.once('close', () => {
      closed = true;
      this.open -= 1;
      clearInterval(keepAlive);
      for (const stop of stops) stop();
    });
    const watch = async (kind: ObjectKind, watchNamespace: string | undefined, delayMs: number): Promise<void> => {
      if (closed) return;
      try {
        const path = await this.client.pathFor({ ...kind, ...(watchNamespace !== undefined ? { namespace: watchNamespace } : {}) });
        const stop = await this.client.watch(
          path,
          {},
          (event: WatchEvent) => send('change', { kind: kind.kind, type: event.type, namespace: event.object?.metadata?.namespace, name: event.object?.metadata?.name }),
          (error: unknown) => void retry(kind, watchNamespace, error, delayMs),
        );
        if (closed) stop();
        else stops.push(stop);
      } catch (error) {
        await retry(kind, watchNamespace, error, delayMs);
      }
    };
    const retry = async (kind: ObjectKind, watchNamespace: string | undefined, error: unknown, delayMs: number) => {
      if (closed) return;
      const message = error ? describeError(error) : '';
      if (/\b403\b|forbidden/i.test(message)) {
        send('problem', { kind: kind.kind, message: `live updates of ${kind.kind} are off: ${message}` });
        return;
      }
      // A clean end (the server's watch timeout) reopens at once; a failure backs off.
      const wait = error ? Math.min(delayMs * 2, maxRetryDelayMs) : 0;
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
      await watch(kind, watchNamespace, error ? wait : 500);
    };
    for (const kind of namespacedKinds) void watch(kind, namespace, 500);
    for (const kind of clusterWideKinds) void watch(kind, undefined, 500);
  }
}

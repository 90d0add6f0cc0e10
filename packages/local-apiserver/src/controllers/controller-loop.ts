/**
 * A tiny level-triggered work queue: keys are deduplicated while queued and processed one at a time
 * on a later turn of the event loop. A failing key is retried after a short backoff.
 */
export class WorkQueue {
  private readonly queued = new Set<string>();
  private scheduled = false;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly process: (key: string) => void) {}

  add(key: string): void {
    if (this.stopped) return;
    this.queued.add(key);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private drain(): void {
    this.scheduled = false;
    const keys = [...this.queued];
    this.queued.clear();
    for (const key of keys) {
      if (this.stopped) return;
      try {
        this.process(key);
      } catch {
        // Conflicts with concurrent writers are expected; try again shortly.
        this.addAfter(key, 20);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

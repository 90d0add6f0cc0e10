import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeObject } from './kube-object.js';
import type { LogRecord, Store, StoreEvent, StorePersistence } from './store.js';

/**
 * The durable store: an append-only JSON-lines log in `<dataDir>/store.jsonl`.
 * Every write is appended and fsynced before the request is acknowledged (writes arriving while a
 * sync runs share the next one). On start the log is replayed and rewritten compactly: a header,
 * the current objects, and the retained event history so that watches resume across restarts.
 */
type Line =
  | { t: 'meta'; revision: number; compacted: number }
  | { t: 'obj'; resource: string; object: KubeObject }
  | { t: 'hist'; event: StoreEvent }
  | LogRecord;

const fileName = 'store.jsonl';

/**
 * A record of the log that cannot be replayed, anywhere but a torn last line. Start-up stops with
 * it and leaves the file untouched: replaying past it, or rewriting the log from what came before
 * it, would silently lose every acknowledged write after it.
 */
export class DataDirCorruptError extends Error {
  readonly code = 'OLM_APISERVER_DATA_DIR_CORRUPT';

  constructor(
    readonly path: string,
    readonly line: number,
    reason: string,
  ) {
    super(
      `${path}:${line}: the data directory's log is corrupt: ${reason}. Nothing was changed. ` +
        `To recover, move ${path} aside and start again (an empty cluster), or keep what precedes the bad record ` +
        `(\`head -n ${line - 1} ${path} > ${path}.recovered\`, then move the original aside and rename the copy to store.jsonl), ` +
        'losing the writes recorded after it.',
    );
    this.name = 'DataDirCorruptError';
  }
}

/** Why a parsed line is not a record this log writes, or undefined when it is one. */
function recordProblem(line: unknown): string | undefined {
  if (line === null || typeof line !== 'object' || Array.isArray(line)) return 'not a JSON object';
  const record = line as Record<string, unknown>;
  const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
  const hasMetadata = (value: unknown) => isObject(value) && isObject((value as { metadata?: unknown }).metadata);
  switch (record['t']) {
    case 'meta':
      return typeof record['revision'] === 'number' && typeof record['compacted'] === 'number' ? undefined : 'a header without numeric revision and compacted';
    case 'obj':
      return typeof record['resource'] === 'string' && hasMetadata(record['object']) ? undefined : 'an object record without resource or object metadata';
    case 'hist':
    case 'put':
    case 'del': {
      const event = record['event'] as Record<string, unknown> | undefined;
      const valid = isObject(event) && typeof event!['revision'] === 'number' && typeof event!['resource'] === 'string' && hasMetadata(event!['object']);
      return valid ? undefined : `a "${String(record['t'])}" record without a valid event (revision, resource, object metadata)`;
    }
    default:
      return `unknown record type ${JSON.stringify(record['t'])}`;
  }
}

export class DurableLog implements StorePersistence {
  private handle: FileHandle | undefined;
  private pending: LogRecord[] = [];
  /** Records appended so far, and how many of them are settled: on disk (or failed), in append order. */
  private appended = 0;
  private synced = 0;
  /** Callers of flush() waiting until `synced` reaches `upTo`. */
  private waiters: { upTo: number; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private syncing = false;
  private appendedSinceCompaction = 0;
  private closed = false;

  private constructor(
    private readonly directory: string,
    private readonly store: Store,
    private readonly compactAfterRecords: number,
  ) {}

  /**
   * Replays `<dataDir>/store.jsonl` into `store`, compacts it and attaches itself for new writes.
   * The log is compacted again once more than `compactAfterRecords` (default: 20,000, or twice the
   * number of objects if larger) records were appended.
   */
  static async open(directory: string, store: Store, options: { compactAfterRecords?: number } = {}): Promise<DurableLog> {
    mkdirSync(directory, { recursive: true });
    const log = new DurableLog(directory, store, options.compactAfterRecords ?? 20_000);
    const path = join(directory, fileName);
    // A corrupt log stops here, before anything is rewritten: the file stays as it was.
    if (existsSync(path)) log.replay(path, readFileSync(path, 'utf8'));
    log.writeSnapshot();
    log.handle = await open(path, 'a');
    store.setPersistence(log);
    return log;
  }

  private replay(path: string, text: string): void {
    const history: StoreEvent[] = [];
    const objects: { resource: string; object: KubeObject }[] = [];
    let revision = 0;
    let compacted = 0;
    const lines = text.split('\n');
    let last = lines.length - 1;
    while (last >= 0 && lines[last]!.trim() === '') last--;
    for (let index = 0; index <= last; index++) {
      const raw = lines[index]!;
      if (raw.trim() === '') continue;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch (error) {
        // A torn last line (crash mid-append) was never acknowledged: the log ends before it.
        if (index === last) break;
        throw new DataDirCorruptError(path, index + 1, `not JSON (${error instanceof Error ? error.message : String(error)})`);
      }
      const problem = recordProblem(line);
      if (problem !== undefined) throw new DataDirCorruptError(path, index + 1, problem);
      if (line.t === 'meta') {
        revision = line.revision;
        compacted = line.compacted;
      } else if (line.t === 'obj') objects.push({ resource: line.resource, object: line.object });
      else if (line.t === 'hist') history.push(line.event);
      else {
        if (objects.length > 0 || history.length > 0 || revision > 0) {
          this.store.restore({ revision, compactedRevision: compacted, objects, history });
          objects.length = 0;
          history.length = 0;
          revision = 0;
        }
        this.store.replay(line);
      }
    }
    this.store.restore({ revision, compactedRevision: compacted, objects, history });
  }

  /** Rewrites the log as header + objects + history, atomically (temp file, fsync, rename). */
  private writeSnapshot(): void {
    const path = join(this.directory, fileName);
    const temporary = `${path}.tmp`;
    const fd = openSync(temporary, 'w');
    try {
      let chunk: string[] = [JSON.stringify({ t: 'meta', revision: this.store.revision, compacted: this.store.compactedRevision })];
      const write = (line: string): void => {
        chunk.push(line);
        if (chunk.length >= 1000) {
          writeSync(fd, `${chunk.join('\n')}\n`);
          chunk = [];
        }
      };
      for (const { resource, object } of this.store.allObjects()) write(JSON.stringify({ t: 'obj', resource, object }));
      for (const event of this.store.history()) write(JSON.stringify({ t: 'hist', event }));
      if (chunk.length > 0) writeSync(fd, `${chunk.join('\n')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
    const directoryFd = openSync(this.directory, 'r');
    try {
      fsyncSync(directoryFd);
    } finally {
      closeSync(directoryFd);
    }
    this.appendedSinceCompaction = 0;
  }

  append(record: LogRecord): void {
    if (this.closed) return;
    this.pending.push(record);
    this.appended++;
  }

  /**
   * Resolves once every record appended so far is on disk. Records appended while a sync runs share
   * the next one (group commit); a caller is answered only by a sync that covered its records.
   */
  flush(): Promise<void> {
    const upTo = this.appended;
    if (this.synced >= upTo || !this.handle) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ upTo, resolve, reject }));
    if (!this.syncing) void this.syncLoop();
    return done;
  }

  private async syncLoop(): Promise<void> {
    this.syncing = true;
    try {
      while (this.pending.length > 0 && this.handle) {
        const lines = this.pending;
        this.pending = [];
        await this.handle.write(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
        await this.handle.datasync();
        this.markSynced(lines.length);
        this.appendedSinceCompaction += lines.length;
        if (this.appendedSinceCompaction > Math.max(this.compactAfterRecords, 2 * this.store.count())) await this.compact();
      }
    } catch (error) {
      // The batch may be lost: its writes (and any waiting with them) fail rather than being acknowledged.
      this.synced = this.appended - this.pending.length;
      for (const waiter of this.waiters.splice(0)) waiter.reject(error);
    } finally {
      this.syncing = false;
    }
  }

  private markSynced(count: number): void {
    this.synced += count;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (waiter.upTo <= this.synced) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }

  private async compact(): Promise<void> {
    await this.handle?.close();
    // Everything pending was written above; the snapshot covers it.
    const revision = this.store.revision;
    this.writeSnapshot();
    // Records appended meanwhile are already in the snapshot, which is on disk.
    const remaining = this.pending.filter((record) => record.event.revision > revision);
    this.markSynced(this.pending.length - remaining.length);
    this.pending = remaining;
    this.handle = await open(join(this.directory, fileName), 'a');
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.handle?.close();
    this.handle = undefined;
  }
}

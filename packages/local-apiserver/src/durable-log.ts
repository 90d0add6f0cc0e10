import { closeSync, existsSync, fchmodSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDirectory } from './data-dir-modes.js';
import type { KubeObject } from './kube-object.js';
import { readLogLines } from './log-lines.js';
import { decodeRecordLine, encodeRecordLine, isLegacyLine, type DecodedLine } from './log-record-format.js';
import type { LogRecord, Store, StoreEvent, StorePersistence } from './store.js';

/**
 * The durable store: an append-only JSON-lines log in `<dataDir>/store.jsonl`, each record framed
 * with its sequence number and checksum (log-record-format.ts).
 * Every write is appended and fsynced before the request is acknowledged (writes arriving while a
 * sync runs share the next one). On start the log is replayed as a stream and rewritten compactly:
 * a header, the current objects, and the retained event history so that watches resume across restarts.
 * A log of the earlier unframed format is read the same way and rewritten framed.
 */
type Line =
  | { t: 'meta'; revision: number; compacted: number }
  | { t: 'obj'; resource: string; object: KubeObject }
  | { t: 'hist'; event: StoreEvent }
  | LogRecord;

const fileName = 'store.jsonl';
/** Bytes handed to one write() call: many near-limit objects must not be joined into one huge string. */
const writeChunkBytes = 8 * 1024 * 1024;
/** A record holds an object and its previous state; generous for old logs written before size limits. */
const defaultMaxRecordBytes = 256 * 1024 * 1024;

export interface DurableLogOptions {
  /** Compact once more than this many records were appended (default 20,000, or twice the objects). */
  readonly compactAfterRecords?: number;
  /** Where a dropped torn last record is reported (default process.emitWarning). */
  readonly warn?: (message: string) => void;
  /** Longest record line the reader accepts (default 256 MiB). */
  readonly maxRecordBytes?: number;
}

const emitWarning = (message: string): void => process.emitWarning(message, { code: 'OLM_APISERVER_DATA_DIR' });

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
  /** Lines in the file: the next record's sequence number is one more. */
  private sequence = 0;
  /** A failed write may have left part of a line: the file is rewritten before anything is appended to it. */
  private damaged = false;
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
  static async open(directory: string, store: Store, options: DurableLogOptions = {}): Promise<DurableLog> {
    makePrivateDirectory(directory);
    const log = new DurableLog(directory, store, options.compactAfterRecords ?? 20_000);
    const path = join(directory, fileName);
    // A corrupt log stops here, before anything is rewritten: the file stays as it was.
    if (existsSync(path)) await replayLog(path, store, options.warn ?? emitWarning, options.maxRecordBytes ?? defaultMaxRecordBytes);
    log.writeSnapshot();
    log.handle = await open(path, 'a', 0o600);
    store.setPersistence(log);
    return log;
  }

  /** Rewrites the log as header + objects + history, atomically (temp file, fsync, rename). */
  private writeSnapshot(): void {
    const path = join(this.directory, fileName);
    const temporary = `${path}.tmp`;
    const fd = openSync(temporary, 'w', 0o600);
    let sequence = 0;
    try {
      // A temp file left by an older version keeps its mode through open(): set it.
      fchmodSync(fd, 0o600);
      const writer = new ChunkedWriter((text) => writeSync(fd, text));
      writer.add(encodeRecordLine(++sequence, JSON.stringify({ t: 'meta', revision: this.store.revision, compacted: this.store.compactedRevision })));
      for (const { resource, object } of this.store.allObjects()) writer.add(encodeRecordLine(++sequence, JSON.stringify({ t: 'obj', resource, object })));
      for (const event of this.store.history()) writer.add(encodeRecordLine(++sequence, JSON.stringify({ t: 'hist', event })));
      writer.end();
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
    this.sequence = sequence;
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
      if (this.damaged) await this.compact();
      while (this.pending.length > 0 && this.handle) {
        const records = this.pending;
        this.pending = [];
        this.damaged = true;
        const chunks: string[] = [];
        const writer = new ChunkedWriter((text) => chunks.push(text));
        for (const record of records) writer.add(encodeRecordLine(++this.sequence, JSON.stringify(record)));
        writer.end();
        for (const chunk of chunks) await this.handle.write(chunk);
        await this.handle.datasync();
        this.damaged = false;
        this.markSynced(records.length);
        this.appendedSinceCompaction += records.length;
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
    this.handle = undefined;
    // Everything pending was written above; the snapshot covers it.
    const revision = this.store.revision;
    this.writeSnapshot();
    this.damaged = false;
    // Records appended meanwhile are already in the snapshot, which is on disk.
    const remaining = this.pending.filter((record) => record.event.revision > revision);
    this.markSynced(this.pending.length - remaining.length);
    this.pending = remaining;
    this.handle = await open(join(this.directory, fileName), 'a', 0o600);
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.handle?.close();
    this.handle = undefined;
  }
}

/** Joins lines into writes of at most about `writeChunkBytes` (a single longer line is one write). */
class ChunkedWriter {
  private lines: string[] = [];
  private length = 0;

  constructor(private readonly write: (text: string) => void) {}

  add(line: string): void {
    if (this.length > 0 && this.length + line.length > writeChunkBytes) this.end();
    this.lines.push(line);
    this.length += line.length + 1;
  }

  end(): void {
    if (this.lines.length === 0) return;
    this.write(`${this.lines.join('\n')}\n`);
    this.lines = [];
    this.length = 0;
  }
}

/**
 * Replays the log into `store`, line by line. A bad line is fatal when any line follows it; a bad
 * last line is a torn append (never acknowledged), dropped with a warning.
 */
async function replayLog(path: string, store: Store, warn: (message: string) => void, maxRecordBytes: number): Promise<void> {
  const replay = new Replay(store);
  let legacy: boolean | undefined;
  let bad: { line: number; problem: string } | undefined;
  for await (const line of readLogLines(path, maxRecordBytes)) {
    if (bad) throw new DataDirCorruptError(path, bad.line, bad.problem);
    if (line.text.trim() === '') {
      bad = { line: line.number, problem: 'a blank line where a record belongs' };
      continue;
    }
    legacy ??= isLegacyLine(line.text);
    const decoded: DecodedLine = legacy ? decodeLegacyLine(line.text) : decodeRecordLine(line.text, line.number);
    if ('gap' in decoded && decoded.gap === true) throw new DataDirCorruptError(path, line.number, decoded.problem);
    const problem = 'problem' in decoded ? decoded.problem : recordProblem(decoded.record);
    if (problem !== undefined) bad = { line: line.number, problem };
    else replay.apply((decoded as { record: Line }).record);
  }
  if (bad) warn(`${path}:${bad.line}: dropped the log's last record, torn by a crash before it was acknowledged (${bad.problem}); the log is rewritten without it`);
  replay.finish();
}

function decodeLegacyLine(text: string): DecodedLine {
  try {
    return { record: JSON.parse(text) as unknown };
  } catch (error) {
    return { problem: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** Applies log records in order: a snapshot (header, objects, history) then puts and deletes. */
class Replay {
  private history: StoreEvent[] = [];
  private objects: { resource: string; object: KubeObject }[] = [];
  private revision = 0;
  private compacted = 0;

  constructor(private readonly store: Store) {}

  apply(line: Line): void {
    if (line.t === 'meta') {
      this.revision = line.revision;
      this.compacted = line.compacted;
    } else if (line.t === 'obj') this.objects.push({ resource: line.resource, object: line.object });
    else if (line.t === 'hist') this.history.push(line.event);
    else {
      if (this.objects.length > 0 || this.history.length > 0 || this.revision > 0) this.finish();
      this.store.replay(line);
    }
  }

  finish(): void {
    this.store.restore({ revision: this.revision, compactedRevision: this.compacted, objects: this.objects, history: this.history });
    this.objects = [];
    this.history = [];
    this.revision = 0;
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { basename, dirname, join } from 'node:path';
import type { Catalog } from '@olm/registry';
import { catalogObjects } from './catalog-objects.js';
import { CatalogIndexBuilder, type CatalogIndex, type Section, parseCatalogIndex } from './catalog-index.js';

/** The file names catalogd uses in a catalog's directory, plus ours for the revision. */
const catalogFile = 'catalog.jsonl';
const gzipFile = 'catalog.jsonl.gz';
const indexFile = 'index.json';
const revisionFile = 'revision.json';

/** What identifies one stored revision of a catalog's content. */
export interface CatalogContentRevision {
  /** A strong entity tag (quoted), the SHA-256 of the JSON Lines file. */
  readonly etag: string;
  /** When the content was written, to the second (HTTP dates have no finer resolution). */
  readonly lastModified: Date;
  /** Bytes of the JSON Lines file. */
  readonly size: number;
  /** FBC objects (lines) in it. */
  readonly objects: number;
  /** Bytes of its gzip encoding, `catalog.jsonl.gz`. */
  readonly gzipSize: number;
}

/** An opened revision: its index in memory, its content read from disk on demand. */
export interface CatalogContentStore {
  readonly revision: CatalogContentRevision;
  readonly index: CatalogIndex;
  /** The bytes of the given sections (sorted by offset), or of the whole file, streamed in chunks. */
  read(sections?: readonly Section[]): AsyncGenerator<Buffer>;
  /** The whole file gzip-encoded, compressed once at write so that serving it costs no CPU. */
  readGzip(): AsyncGenerator<Buffer>;
  /** Closes the file once the reads in progress end. */
  close(): Promise<void>;
}

const writeChunkBytes = 256 * 1024;
const readChunkBytes = 64 * 1024;

/**
 * Precomputes a catalog's content once per revision into `directory` (created, or replaced
 * atomically: the new content is written beside it and renamed over it): `catalog.jsonl` (one FBC
 * object a line, as catalogd's `/api/v1/all` serves it), `index.json` (byte sections by schema,
 * package and name, catalogd's format), `catalog.jsonl.gz` and `revision.json`.
 */
export async function writeCatalogContent(directory: string, catalog: Catalog, now: Date = new Date()): Promise<CatalogContentRevision> {
  await mkdir(dirname(directory), { recursive: true });
  const staging = join(dirname(directory), `.${basename(directory)}-${randomBytes(6).toString('hex')}`);
  await mkdir(staging, { recursive: true, mode: 0o700 });
  try {
    const hash = createHash('sha256');
    const index = new CatalogIndexBuilder();
    const file = await open(join(staging, catalogFile), 'w', 0o600);
    let size = 0;
    let objects = 0;
    try {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      for (const object of catalogObjects(catalog)) {
        const bytes = Buffer.from(object.line, 'utf8');
        index.add(object, { offset: size, length: bytes.length });
        hash.update(bytes);
        size += bytes.length;
        objects += 1;
        pending.push(bytes);
        pendingBytes += bytes.length;
        if (pendingBytes >= writeChunkBytes) {
          await file.write(Buffer.concat(pending));
          pending = [];
          pendingBytes = 0;
        }
      }
      if (pendingBytes > 0) await file.write(Buffer.concat(pending));
      await file.sync();
    } finally {
      await file.close();
    }
    await pipeline(createReadStream(join(staging, catalogFile)), createGzip(), createWriteStream(join(staging, gzipFile), { mode: 0o600 }));
    const revision: CatalogContentRevision = {
      etag: `"${hash.digest('hex')}"`,
      lastModified: new Date(Math.floor(now.getTime() / 1000) * 1000),
      size,
      objects,
      gzipSize: (await stat(join(staging, gzipFile))).size,
    };
    await writeFile(join(staging, indexFile), index.toJson(), { mode: 0o600 });
    await writeFile(join(staging, revisionFile), JSON.stringify({ ...revision, lastModified: revision.lastModified.toISOString() }), { mode: 0o600 });
    // Readers keep the file they opened: replacing the directory never mixes two revisions.
    const previous = `${staging}-previous`;
    await rename(directory, previous).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await rename(staging, directory);
    await rm(previous, { recursive: true, force: true });
    return revision;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

function contentError(directory: string, what: string, cause?: unknown): Error {
  return new Error(`catalog content in ${directory}: ${what}; write it again with writeCatalogContent`, { cause });
}

async function readRevision(directory: string): Promise<CatalogContentRevision> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(directory, revisionFile), 'utf8'));
  } catch (error) {
    throw contentError(directory, `cannot read ${revisionFile}: ${(error as Error).message}`, error);
  }
  const value = parsed as Record<string, unknown>;
  const lastModified = new Date(String(value.lastModified));
  if (typeof value.etag !== 'string' || typeof value.size !== 'number' || typeof value.objects !== 'number' || typeof value.gzipSize !== 'number' || Number.isNaN(lastModified.getTime())) {
    throw contentError(directory, `${revisionFile} is not a revision (etag, lastModified, size, objects, gzipSize)`);
  }
  return { etag: value.etag, lastModified, size: value.size, objects: value.objects, gzipSize: value.gzipSize };
}

/** Opens a revision written by `writeCatalogContent`; it keeps one file open until `close()`. */
export async function openCatalogContent(directory: string): Promise<CatalogContentStore> {
  const revision = await readRevision(directory);
  let index: CatalogIndex;
  try {
    index = parseCatalogIndex(await readFile(join(directory, indexFile), 'utf8'), revision.size);
  } catch (error) {
    throw contentError(directory, `cannot read ${indexFile}: ${(error as Error).message}`, error);
  }
  const files: FileHandle[] = [];
  try {
    for (const [name, expected] of [[catalogFile, revision.size], [gzipFile, revision.gzipSize]] as const) {
      const file = await open(join(directory, name), 'r');
      files.push(file);
      const { size } = await file.stat();
      if (size !== expected) throw contentError(directory, `${name} has ${size} bytes, ${revisionFile} says ${expected}`);
    }
  } catch (error) {
    await Promise.all(files.map((file) => file.close()));
    throw error;
  }
  return new FileContentStore(revision, index, files[0]!, files[1]!);
}

class FileContentStore implements CatalogContentStore {
  #reads = 0;
  #closed = false;
  #idle: (() => void) | undefined;

  constructor(
    readonly revision: CatalogContentRevision,
    readonly index: CatalogIndex,
    private readonly file: FileHandle,
    private readonly gzipFile: FileHandle,
  ) {}

  read(sections?: readonly Section[]): AsyncGenerator<Buffer> {
    return this.#read(this.file, sections ?? [{ offset: 0, length: this.revision.size }]);
  }

  readGzip(): AsyncGenerator<Buffer> {
    return this.#read(this.gzipFile, [{ offset: 0, length: this.revision.gzipSize }]);
  }

  async *#read(file: FileHandle, sections: readonly Section[]): AsyncGenerator<Buffer> {
    if (this.#closed) throw new Error('the catalog content store is closed');
    this.#reads += 1;
    try {
      for (const section of mergeAdjacent(sections)) {
        for (let done = 0; done < section.length; ) {
          const length = Math.min(readChunkBytes, section.length - done);
          const chunk = Buffer.allocUnsafe(length);
          const { bytesRead } = await file.read(chunk, 0, length, section.offset + done);
          if (bytesRead === 0) throw new Error(`catalog content ended at byte ${section.offset + done}, before the end of its section`);
          done += bytesRead;
          yield bytesRead === length ? chunk : chunk.subarray(0, bytesRead);
        }
      }
    } finally {
      this.#reads -= 1;
      if (this.#reads === 0) this.#idle?.();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#reads > 0) await new Promise<void>((resolve) => (this.#idle = resolve));
    await Promise.all([this.file.close(), this.gzipFile.close()]);
  }
}

/** Sections next to each other become one read. */
function* mergeAdjacent(sections: readonly Section[]): Generator<Section> {
  let current: Section | undefined;
  for (const section of sections) {
    if (current !== undefined && current.offset + current.length === section.offset) {
      current = { offset: current.offset, length: current.length + section.length };
      continue;
    }
    if (current !== undefined) yield current;
    current = section;
  }
  if (current !== undefined) yield current;
}

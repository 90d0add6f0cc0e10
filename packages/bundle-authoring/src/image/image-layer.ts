import { gzipSync } from 'node:zlib';
import tarStream from 'tar-stream';

/** A layer blob (gzip tar) and the digest of its uncompressed tar (the config's `rootfs.diff_ids`). */
export interface ImageLayer {
  readonly gzip: Buffer;
  readonly tar: Buffer;
}

// Fixed metadata, so the same files always give the same bytes (and digests).
const epoch = new Date(0);
const owner = { uid: 0, gid: 0, uname: '', gname: '' };

/** Every directory above the files (`a`, `a/b` for `a/b/c.yaml`), so the layer unpacks with its directories. */
function parentDirectories(paths: readonly string[]): string[] {
  const directories = new Set<string>();
  for (const path of paths) {
    const parts = path.split('/');
    for (let depth = 1; depth < parts.length; depth++) directories.add(parts.slice(0, depth).join('/'));
  }
  return [...directories];
}

/**
 * One layer holding `files` (image paths, e.g. `manifests/x.yaml`): a tar archive with its entries
 * sorted by path, directories 0755 and files 0644 owned by root, every time the Unix epoch; then
 * gzip at level 9. The same files give the same layer digest, whatever machine or time builds it.
 */
export async function buildImageLayer(files: ReadonlyMap<string, Buffer>): Promise<ImageLayer> {
  const paths = [...files.keys()];
  const entries = [...parentDirectories(paths).map((path) => ({ path, directory: true })), ...paths.map((path) => ({ path, directory: false }))].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const entry of entries) {
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      if (entry.directory) pack.entry({ name: `${entry.path}/`, type: 'directory', mode: 0o755, mtime: epoch, ...owner }, done);
      else pack.entry({ name: entry.path, type: 'file', mode: 0o644, mtime: epoch, ...owner }, files.get(entry.path)!, done);
    });
  }
  pack.finalize();
  await collected;
  const tar = Buffer.concat(chunks);
  return { tar, gzip: gzipSync(tar, { level: 9 }) };
}

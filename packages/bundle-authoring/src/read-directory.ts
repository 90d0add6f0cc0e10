import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OlmError, describeError } from '@olm/core';
import { AuthoringErrorCodes, authoringLimitExceeded, defaultAuthoringLimits, type AuthoringLimits } from './authoring-limits.js';

/** Regular files below a directory: `/`-separated paths relative to it, in sorted order, with their bytes. */
export type DirectoryFiles = ReadonlyMap<string, Buffer>;

/**
 * Reads every regular file below `dir` (symbolic links and other special files are skipped, as an
 * image layer would not hold what they point at), bounded by `limits` in aggregate: the number of
 * entries, each file's size (from its metadata, before reading) and the total.
 */
export async function readDirectoryFiles(dir: string, limits: AuthoringLimits = defaultAuthoringLimits): Promise<DirectoryFiles> {
  const files = new Map<string, Buffer>();
  let entries = 0;
  let total = 0;
  async function walk(relative: string): Promise<void> {
    const absolute = relative === '' ? dir : join(dir, relative);
    let names: string[];
    try {
      names = (await readdir(absolute)).sort();
    } catch (error) {
      throw new OlmError(AuthoringErrorCodes.input, `cannot read directory ${absolute}: ${describeError(error)}; pass an existing directory`, { cause: error });
    }
    for (const name of names) {
      const path = relative === '' ? name : `${relative}/${name}`;
      entries += 1;
      if (entries > limits.maxFiles) throw authoringLimitExceeded('maxFiles', limits, `${dir} has`, `more than ${limits.maxFiles} entries`);
      const info = await lstat(join(dir, path));
      if (info.isDirectory()) {
        await walk(path);
      } else if (info.isFile()) {
        if (info.size > limits.maxFileBytes) throw authoringLimitExceeded('maxFileBytes', limits, `file ${join(dir, path)} is`, `${info.size} bytes`);
        total += info.size;
        if (total > limits.maxTotalBytes) throw authoringLimitExceeded('maxTotalBytes', limits, `the files of ${dir} up to ${path} take`, `${total} bytes`);
        files.set(path, await readFile(join(dir, path)));
      }
    }
  }
  await walk('');
  return files;
}

import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data directory holds every Secret and ServiceAccount token, the admin token and the serving key:
 * it is the owner's only (directories 0700, files 0600). What this server keeps there and finds left
 * looser by an older version (or a umask) is tightened, with a warning naming it. Other entries are
 * left alone: a data directory may be shared with the user's own files.
 */
const ownEntries = ['store.jsonl', 'store.jsonl.tmp', 'kubeconfig', 'auth', 'tls'];

export function makePrivateDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
}

export function tightenDataDirModes(directory: string, warn: (message: string) => void): void {
  const tightened: string[] = [];
  const tighten = (path: string): boolean => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return false;
    const mode = stat.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      chmodSync(path, (mode & 0o700) | (stat.isDirectory() ? 0o700 : 0o600));
      tightened.push(`${path} (was 0${mode.toString(8)})`);
    }
    return stat.isDirectory();
  };
  tighten(directory);
  for (const entry of ownEntries) {
    const path = join(directory, entry);
    if (!existsSync(path)) continue;
    // auth/ and tls/ hold only this server's files.
    if (tighten(path)) for (const child of readdirSync(path)) tighten(join(path, child));
  }
  if (tightened.length > 0) {
    warn(`the data directory holds Secrets and tokens: tightened the modes of ${tightened.join(', ')} to 0700 (directories) and 0600 (files)`);
  }
}

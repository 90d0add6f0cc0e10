import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data directory holds every Secret and ServiceAccount token, the admin token and the serving key:
 * it is the owner's only (directories 0700, files 0600). One left looser by an older version (or a
 * umask) is tightened, with a warning naming it.
 */
export function makePrivateDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
}

export function tightenDataDirModes(directory: string, warn: (message: string) => void): void {
  const loosened: string[] = [];
  const visit = (path: string, depth: number): void => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      chmodSync(path, (mode & 0o700) | (stat.isDirectory() ? 0o700 : 0o600));
      loosened.push(`${path} (was 0${mode.toString(8)})`);
    }
    // The data directory is a few levels deep at most (auth/, tls/); a deeper tree is not ours to walk.
    if (stat.isDirectory() && depth < 3) for (const entry of readdirSync(path)) visit(join(path, entry), depth + 1);
  };
  visit(directory, 0);
  if (loosened.length > 0) {
    warn(`the data directory holds Secrets and tokens: tightened the modes of ${loosened.join(', ')} to 0700 (directories) and 0600 (files)`);
  }
}

import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBundleImage, pushOciImage } from '@olm/bundle-authoring';

export const examplesDir = fileURLToPath(new URL('../../../examples/', import.meta.url));
const backupBundle = join(examplesDir, 'bundles', 'acme-backup.v0.1.0');

/** The example acme-backup bundle as version `version` (CSV name, version and operator image tag changed), in a new directory. */
export async function backupBundleVersion(version: string): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'olm-bundle-version-')), `acme-backup.v${version}`);
  await cp(backupBundle, dir, { recursive: true });
  const csv = join(dir, 'manifests', 'acme-backup.clusterserviceversion.yaml');
  const text = await readFile(csv, 'utf8');
  await writeFile(csv, text.replace('name: acme-backup.v0.1.0', `name: acme-backup.v${version}`).replace('version: 0.1.0', `version: ${version}`).replaceAll('acme-backup-operator:v0.1.0', `acme-backup-operator:v${version}`));
  return dir;
}

/** Builds acme-backup `version` and pushes it to `repository` (`host/path`) under tag `v<version>`; answers the reference. */
export async function pushBackupBundle(repository: string, version: string): Promise<string> {
  const { image } = await buildBundleImage(await backupBundleVersion(version));
  const reference = `${repository}:v${version}`;
  await pushOciImage(image, reference);
  return reference;
}

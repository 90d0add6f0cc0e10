import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { buildBundleImage, buildOciImage, pushOciImage } from '@olm/bundle-authoring';
import { MediaTypes } from '@olm/bundle-puller/registry';

export const examplesDir = fileURLToPath(new URL('../../../examples/', import.meta.url));
const backupBundle = join(examplesDir, 'bundles', 'acme-backup.v0.1.0');

/** The example acme-backup bundle as version `version` (CSV name, version and operator image tag changed), in a new directory. */
export async function backupBundleVersion(version: string, operatorImage = `registry.example.com/acme/acme-backup-operator:v${version}`): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'olm-bundle-version-')), `acme-backup.v${version}`);
  await cp(backupBundle, dir, { recursive: true });
  const csv = join(dir, 'manifests', 'acme-backup.clusterserviceversion.yaml');
  const text = await readFile(csv, 'utf8');
  await writeFile(csv, text.replace('name: acme-backup.v0.1.0', `name: acme-backup.v${version}`).replace('version: 0.1.0', `version: ${version}`).replaceAll('registry.example.com/acme/acme-backup-operator:v0.1.0', operatorImage));
  return dir;
}

/** Builds acme-backup `version` and pushes it to `repository` (`host/path`) under tag `v<version>`; answers the reference. */
export async function pushBackupBundle(repository: string, version: string, operatorImage?: string): Promise<string> {
  const { image } = await buildBundleImage(await backupBundleVersion(version, operatorImage));
  const reference = `${repository}:v${version}`;
  await pushOciImage(image, reference);
  return reference;
}

/**
 * A stand-in operator image, multi-arch: an OCI index of two images (linux/amd64 and linux/arm64), each
 * one layer of `layerBytes` random bytes, pushed to `reference` (`registry/repository:tag`).
 */
export async function pushMultiArchImage(registryUrl: string, reference: string, layerBytes = 64 * 1024): Promise<void> {
  const [host, ...rest] = reference.split('/');
  const [repository, tag] = rest.join('/').split(':') as [string, string];
  const manifests = [];
  for (const architecture of ['amd64', 'arm64']) {
    const image = await buildOciImage(new Map([[`bin/operator-${architecture}`, randomBytes(layerBytes)]]), { architecture });
    await pushOciImage(image, `${host}/${repository}@${image.manifestDigest}`);
    manifests.push({ mediaType: MediaTypes.ociManifest, digest: image.manifestDigest, size: image.manifest.length, platform: { os: 'linux', architecture } });
  }
  const index = JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.ociIndex, manifests });
  const put = await fetch(`${registryUrl}/v2/${repository}/manifests/${tag}`, { method: 'PUT', headers: { 'Content-Type': MediaTypes.ociIndex }, body: index });
  if (put.status !== 201) throw new Error(`index ${reference} not pushed: HTTP ${put.status} ${await put.text()}`);
}

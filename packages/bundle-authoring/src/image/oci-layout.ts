import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MediaTypes } from '@olm/bundle-puller/registry';
import type { OciImage } from './oci-image.js';

interface IndexJson {
  schemaVersion: 2;
  mediaType?: string;
  manifests: Array<{ mediaType: string; digest: string; size: number; annotations?: Record<string, string> }>;
}

const refNameAnnotation = 'org.opencontainers.image.ref.name';

async function writeBlob(dir: string, digest: string, bytes: Buffer): Promise<void> {
  await writeFile(join(dir, 'blobs', 'sha256', digest.slice('sha256:'.length)), bytes);
}

/**
 * Writes `image` into an OCI image layout at `dir` (`oci-layout`, `index.json`, `blobs/sha256/`),
 * which `skopeo`, `crane`, `oras` and `podman` read (`oci:DIR:TAG`). The manifest is listed in
 * `index.json` under `tag` (`org.opencontainers.image.ref.name`); an existing layout keeps its other
 * images, and an image of the same tag is replaced.
 */
export async function writeOciLayout(dir: string, image: OciImage, tag = 'latest'): Promise<void> {
  await mkdir(join(dir, 'blobs', 'sha256'), { recursive: true });
  await writeBlob(dir, image.layerDigest, image.layer);
  await writeBlob(dir, image.configDigest, image.config);
  await writeBlob(dir, image.manifestDigest, image.manifest);
  let index: IndexJson = { schemaVersion: 2, mediaType: MediaTypes.ociIndex, manifests: [] };
  try {
    index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) as IndexJson;
  } catch {
    // a new layout
  }
  const others = (index.manifests ?? []).filter((entry) => entry.annotations?.[refNameAnnotation] !== tag);
  index = {
    schemaVersion: 2,
    mediaType: MediaTypes.ociIndex,
    manifests: [...others, { mediaType: MediaTypes.ociManifest, digest: image.manifestDigest, size: image.manifest.length, annotations: { [refNameAnnotation]: tag } }],
  };
  await writeFile(join(dir, 'oci-layout'), `${JSON.stringify({ imageLayoutVersion: '1.0.0' })}\n`);
  await writeFile(join(dir, 'index.json'), `${JSON.stringify(index)}\n`);
}

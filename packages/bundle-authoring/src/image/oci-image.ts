import { MediaTypes, sha256Digest, type PushContent } from '@olm/bundle-puller/registry';
import { buildImageLayer } from './image-layer.js';

/** A built image: its blobs, manifest and digest, ready to push or to write as an OCI layout. */
export interface OciImage {
  readonly manifest: Buffer;
  readonly manifestDigest: string;
  readonly config: Buffer;
  readonly configDigest: string;
  readonly layer: Buffer;
  readonly layerDigest: string;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * An OCI image of one layer holding `files` (image paths), with `labels` on its configuration
 * (`config.Labels`, where `opm` and OLM read an image's kind). No creation time or history, so
 * that the same files and labels always give the same manifest digest. linux/amd64 like the
 * images `opm` builds (the content is data only; any platform can read it).
 */
export async function buildOciImage(files: ReadonlyMap<string, Buffer>, labels: Readonly<Record<string, string>>): Promise<OciImage> {
  const layer = await buildImageLayer(files);
  const sortedLabels = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Labels: sortedLabels },
      rootfs: { type: 'layers', diff_ids: [sha256Digest(layer.tar)] },
    }),
  );
  const configDigest = sha256Digest(config);
  const layerDigest = sha256Digest(layer.gzip);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaTypes.ociManifest,
      config: { mediaType: MediaTypes.ociConfig, digest: configDigest, size: config.length },
      layers: [{ mediaType: MediaTypes.ociLayerGzip, digest: layerDigest, size: layer.gzip.length }],
    }),
  );
  return { manifest, manifestDigest: sha256Digest(manifest), config, configDigest, layer: layer.gzip, layerDigest, labels: sortedLabels };
}

/** What `OciRegistryPusher.pushImage` sends for an image: the layer, the config, then the manifest. */
export function pushContentOf(image: OciImage): PushContent {
  return {
    blobs: [
      { digest: image.layerDigest, bytes: image.layer },
      { digest: image.configDigest, bytes: image.config },
    ],
    manifest: image.manifest,
    manifestMediaType: MediaTypes.ociManifest,
  };
}

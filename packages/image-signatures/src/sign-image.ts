import { createPrivateKey, type KeyObject } from 'node:crypto';
import { OlmError, describeError, hasErrorCode } from '@olm/core';
import { BundleImageErrorCodes, MediaTypes, sha256Digest, type OciArtifactReader, type OciRegistryPusher, type RegistryCredential } from '@olm/bundle-puller/registry';
import { CosignAnnotations, CosignMediaTypes, repositoryOf, signatureTag, simpleSigningPayload } from './cosign-format.js';
import { signWithKey } from './key-signature.js';
import { ImageSignatureErrorCodes } from './signature-errors.js';
import { defaultSignatureLimits } from './signature-limits.js';

/** Makes one signature of a payload: the base64 signature and any annotations to store beside it (a certificate, a log entry). */
export type PayloadSigner = (payload: Buffer) => { readonly signature: string; readonly annotations?: Readonly<Record<string, string>> };

/** A private key (PEM: PKCS #8, SEC1 EC or PKCS #1 RSA; unencrypted) as a signer. */
export function keySigner(privateKeyPem: string | KeyObject): PayloadSigner {
  let key: KeyObject;
  try {
    key = typeof privateKeyPem === 'string' ? createPrivateKey(privateKeyPem) : privateKeyPem;
  } catch (error) {
    throw new OlmError(
      ImageSignatureErrorCodes.signingKey,
      `the signing key is not an unencrypted PEM private key (${describeError(error)}); give an ECDSA P-256, Ed25519 or RSA key as \`openssl genpkey\` writes it (cosign's encrypted "SIGSTORE PRIVATE KEY" format is not read: \`cosign import-key-pair\` goes the other way)`,
    );
  }
  if (key.type !== 'private') throw new OlmError(ImageSignatureErrorCodes.signingKey, 'the signing key is a public key; give the private key');
  return (payload) => ({ signature: signWithKey(payload, key) });
}

export interface SignImageOptions {
  readonly image: string;
  readonly sign: PayloadSigner;
  readonly reader: OciArtifactReader;
  readonly pusher: OciRegistryPusher;
  readonly credentials?: readonly RegistryCredential[];
  readonly signal?: AbortSignal;
}

interface SignatureManifest {
  schemaVersion: 2;
  mediaType: string;
  config: { mediaType: string; size: number; digest: string };
  layers: Array<{ mediaType: string; size: number; digest: string; annotations?: Record<string, string> }>;
}

/** The digest the image reference names: its own digest, or what the registry answers for its tag (an index's own digest for a multi-platform image, as cosign signs it). */
async function digestOf(options: SignImageOptions): Promise<string> {
  const pinned = options.image.match(/@(sha256:[a-f0-9]{64})$/)?.[1];
  if (pinned) return pinned;
  const read = await options.reader.readManifest(options.image, 4 * 1024 * 1024, { ...(options.signal ? { signal: options.signal } : {}), ...(options.credentials ? { credentials: options.credentials } : {}) });
  if (!read) throw new OlmError('OLM_BUNDLE_IMAGE_NOT_FOUND', `image ${options.image} not found; push it before signing it`);
  return read.digest;
}

/**
 * Signs an image as `cosign sign` does (without the transparency log): a simple-signing payload naming the
 * image's digest, signed, added as a layer to the manifest tagged `sha256-<hex>.sig` in its repository
 * (its signatures so far are kept, but for those whose payload the registry no longer has; the same
 * signature twice is stored once). Answers the digest signed
 * and the signature manifest's reference.
 */
export async function signImage(options: SignImageOptions): Promise<{ readonly digest: string; readonly signatures: string }> {
  const digest = await digestOf(options);
  const signatures = `${repositoryOf(options.image)}:${signatureTag(digest)}`;
  const readOptions = { ...(options.signal ? { signal: options.signal } : {}), ...(options.credentials ? { credentials: options.credentials } : {}) };
  const payload = simpleSigningPayload(options.image, digest);
  const payloadDigest = sha256Digest(payload);
  const { signature, annotations } = options.sign(payload);
  const existing = await options.reader.readManifest(signatures, defaultSignatureLimits.maxManifestBytes, readOptions);
  const blobs = new Map<string, Buffer>([[payloadDigest, payload]]);
  const layers: SignatureManifest['layers'] = [];
  for (const layer of (Array.isArray(existing?.manifest.layers) ? existing.manifest.layers : []) as SignatureManifest['layers']) {
    if (layer.digest === payloadDigest && layer.annotations?.[CosignAnnotations.signature] === signature) continue;
    // an earlier signature whose payload is gone cannot be pushed again (the registry refuses the manifest): dropped
    const bytes = blobs.get(layer.digest) ?? (await options.reader.readBlob(options.image, layer.digest, defaultSignatureLimits.maxPayloadBytes, readOptions).catch((error: unknown) => {
        if (hasErrorCode(error, BundleImageErrorCodes.notFound)) return undefined;
        throw error;
      }));
    if (!bytes) continue;
    blobs.set(layer.digest, bytes);
    layers.push(layer);
  }
  layers.push({ mediaType: CosignMediaTypes.simpleSigning, size: payload.length, digest: payloadDigest, annotations: { ...annotations, [CosignAnnotations.signature]: signature } });
  // the configuration cosign writes for a signature image: no platform, one diff per payload
  const config = Buffer.from(
    JSON.stringify({ architecture: '', created: '0001-01-01T00:00:00Z', history: [{ created: '0001-01-01T00:00:00Z' }], os: '', rootfs: { type: 'layers', diff_ids: layers.map((layer) => layer.digest) }, config: {} }),
  );
  const configDigest = sha256Digest(config);
  const manifest: SignatureManifest = {
    schemaVersion: 2,
    mediaType: MediaTypes.ociManifest,
    config: { mediaType: MediaTypes.ociConfig, size: config.length, digest: configDigest },
    layers,
  };
  await options.pusher.pushImage(
    signatures,
    { blobs: [...blobs].map(([blobDigest, bytes]) => ({ digest: blobDigest, bytes })).concat({ digest: configDigest, bytes: config }), manifest: Buffer.from(JSON.stringify(manifest)), manifestMediaType: MediaTypes.ociManifest },
    readOptions,
  );
  return { digest, signatures };
}

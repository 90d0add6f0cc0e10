import { OlmError, describeError, hasErrorCode } from '@olm/core';
import { BundleImageErrorCodes, type ArtifactDescriptor, type OciArtifactReader, type RegistryCredential } from '@olm/bundle-puller/registry';
import { CosignAnnotations, CosignMediaTypes, payloadProblem, repositoryOf, signatureTag } from './cosign-format.js';
import { isSignedWithKey } from './key-signature.js';
import { verifyKeylessSignature } from './keyless-signature.js';
import { ImageSignatureErrorCodes } from './signature-errors.js';
import { defaultSignatureLimits, signatureLimitFlags, type SignatureLimits } from './signature-limits.js';
import type { SignaturePolicy } from './signature-policy.js';

export interface VerifyImageSignaturesOptions {
  readonly reader: OciArtifactReader;
  /** The image as referenced (its repository holds the signatures). */
  readonly image: string;
  /** The manifest digest to verify (`sha256:<hex>`). */
  readonly digest: string;
  readonly policy: SignaturePolicy;
  readonly limits?: Partial<SignatureLimits>;
  readonly credentials?: readonly RegistryCredential[];
  readonly signal?: AbortSignal;
}

const limitHint = (limit: keyof SignatureLimits) => `raise the image signature verifier's signatureLimits.${limit} (olm run/up ${signatureLimitFlags[limit]})`;

/** Which key, or keyless identity, signed one signature layer; or why none did. */
async function verifyLayer(options: VerifyImageSignaturesOptions, layer: ArtifactDescriptor, limits: SignatureLimits): Promise<{ signer?: string; problem?: string }> {
  const { policy } = options;
  const signature = layer.annotations?.[CosignAnnotations.signature];
  if (typeof signature !== 'string' || signature === '') return { problem: `it has no ${CosignAnnotations.signature} annotation` };
  if (!(layer.size <= limits.maxPayloadBytes)) return { problem: `its payload of ${layer.size} bytes is past maxPayloadBytes (${limits.maxPayloadBytes}; ${limitHint('maxPayloadBytes')})` };
  let payload: Buffer;
  try {
    payload = await options.reader.readBlob(options.image, layer.digest, limits.maxPayloadBytes, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    });
  } catch (error) {
    // one unreadable signature (missing, corrupt, too large) does not hide the others
    if (options.signal?.aborted || hasErrorCode(error, BundleImageErrorCodes.unreachable)) throw error;
    return { problem: `its payload cannot be read: ${describeError(error)}` };
  }
  const wrongPayload = payloadProblem(payload, options.digest);
  if (wrongPayload) return { problem: wrongPayload };
  const key = policy.publicKeys.find((candidate) => isSignedWithKey(payload, signature, candidate.key));
  if (key) return { signer: `key ${key.name}` };
  if (layer.annotations?.[CosignAnnotations.certificate] === undefined) {
    return { problem: policy.publicKeys.length > 0 ? `it is not signed by any key of the policy (${policy.publicKeys.map((candidate) => candidate.name).join(', ')})` : 'it is key-based, and the policy lists no public key' };
  }
  if (!policy.keyless) return { problem: `it is keyless (a certificate), and the policy has no trusted root` };
  try {
    return { signer: verifyKeylessSignature(payload, signature, layer.annotations, policy.keyless) };
  } catch (error) {
    return { problem: `keyless: ${describeError(error)}` };
  }
}

/**
 * Verifies that `digest` of `image` carries a cosign signature the policy accepts: the manifest tagged
 * `sha256-<hex>.sig` in the image's repository is read (bounded), and its simple-signing layers are tried in
 * order, at most `maxSignatures`, until one names the digest and verifies with a key of the policy or as a
 * keyless signature of its trusted root and identities. Answers who signed; throws a coded error naming the
 * image, the digest, the policy and what each signature tried lacked.
 */
export async function verifyImageSignatures(options: VerifyImageSignaturesOptions): Promise<{ readonly signer: string }> {
  const limits = { ...defaultSignatureLimits, ...options.limits };
  const { image, digest, policy } = options;
  const signatures = `${repositoryOf(image)}:${signatureTag(digest)}`;
  const what = `image ${image} (digest ${digest})`;
  let manifest;
  try {
    manifest = await options.reader.readManifest(signatures, limits.maxManifestBytes, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    });
  } catch (error) {
    if (!hasErrorCode(error, BundleImageErrorCodes.tooLarge)) throw error;
    throw new OlmError(ImageSignatureErrorCodes.limitExceeded, `the signature manifest ${signatures} of ${what} is larger than maxManifestBytes (${limits.maxManifestBytes} bytes); ${limitHint('maxManifestBytes')}`, { cause: error });
  }
  // a hostile manifest may hold anything: only well-formed descriptors count
  const listed: unknown[] = Array.isArray(manifest?.manifest.layers) ? manifest.manifest.layers : [];
  const layers = listed.filter(
    (layer): layer is ArtifactDescriptor =>
      typeof layer === 'object' && layer !== null && (layer as ArtifactDescriptor).mediaType === CosignMediaTypes.simpleSigning && typeof (layer as ArtifactDescriptor).digest === 'string',
  );
  if (layers.length === 0) {
    throw new OlmError(
      ImageSignatureErrorCodes.unsigned,
      `${what} is not signed: ${manifest ? `${signatures} holds no cosign signature layer` : `no signature manifest ${signatures}`}, and signature policy ${policy.source} requires a signature; sign the image (olm image sign ${image} --key KEY.pem, or cosign sign)`,
    );
  }
  const problems: string[] = [];
  for (const [index, layer] of layers.slice(0, limits.maxSignatures).entries()) {
    const { signer, problem } = await verifyLayer(options, layer, limits);
    if (signer) return { signer };
    problems.push(`signature ${index + 1} (${layer.digest}): ${problem}`);
  }
  const tooMany = layers.length > limits.maxSignatures;
  throw new OlmError(
    tooMany ? ImageSignatureErrorCodes.limitExceeded : ImageSignatureErrorCodes.invalid,
    `${what} has no signature that signature policy ${policy.source} accepts: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}` +
      (tooMany ? `; only the first ${limits.maxSignatures} of its ${layers.length} signatures were tried (maxSignatures; ${limitHint('maxSignatures')})` : ''),
  );
}

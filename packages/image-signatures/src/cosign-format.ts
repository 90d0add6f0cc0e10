/**
 * cosign's signature layout in a registry (its "simple signing" scheme, what `cosign sign` writes by
 * default): the signatures of `repo@sha256:<hex>` are the layers of the manifest tagged
 * `repo:sha256-<hex>.sig`, each layer a payload naming the digest, its signature in an annotation.
 */
export const CosignMediaTypes = {
  simpleSigning: 'application/vnd.dev.cosign.simplesigning.v1+json',
} as const;

export const CosignAnnotations = {
  /** base64 of the signature over the payload's bytes. */
  signature: 'dev.cosignproject.cosign/signature',
  /** PEM of the signing certificate (keyless). */
  certificate: 'dev.sigstore.cosign/certificate',
  /** PEM of the certificate's chain up to the root (keyless). */
  chain: 'dev.sigstore.cosign/chain',
  /** The transparency log's signed entry timestamp and entry (`{SignedEntryTimestamp, Payload: {body, integratedTime, logIndex, logID}}`). */
  bundle: 'dev.sigstore.cosign/bundle',
} as const;

/** The payload's `critical.type`. */
export const cosignSignatureType = 'cosign container image signature';

/** `sha256:<hex>` → the tag of its signatures, `sha256-<hex>.sig`. */
export function signatureTag(digest: string): string {
  return `${digest.replace(':', '-')}.sig`;
}

/** `registry/repo:tag` or `…@sha256:…` → `registry/repo` (a port's colon kept). */
export function repositoryOf(image: string): string {
  const withoutDigest = image.replace(/@.*$/, '');
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}

/** The simple-signing payload cosign signs: the repository and the digest, as cosign writes it. */
export function simpleSigningPayload(image: string, digest: string): Buffer {
  const payload = {
    critical: { identity: { 'docker-reference': repositoryOf(image) }, image: { 'docker-manifest-digest': digest }, type: cosignSignatureType },
    optional: null,
  };
  return Buffer.from(JSON.stringify(payload));
}

/** Why a payload does not vouch for `digest`, or undefined when it does. */
export function payloadProblem(payload: Buffer, digest: string): string | undefined {
  let parsed: { critical?: { image?: { 'docker-manifest-digest'?: unknown }; type?: unknown } };
  try {
    parsed = JSON.parse(payload.toString('utf8')) as typeof parsed;
  } catch {
    return 'its payload is not JSON';
  }
  if (parsed?.critical?.type !== cosignSignatureType) return `its payload's critical.type is ${JSON.stringify(parsed?.critical?.type)}, not ${JSON.stringify(cosignSignatureType)}`;
  const signed = parsed.critical.image?.['docker-manifest-digest'];
  if (signed !== digest) return `its payload names digest ${String(signed)}, not ${digest}`;
  return undefined;
}

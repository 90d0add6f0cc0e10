import { sign, verify, type KeyObject } from 'node:crypto';

/**
 * The digest cosign signs with for each kind of key: Ed25519 signs the payload itself; ECDSA (DER-encoded
 * signatures) and RSA (PKCS #1 v1.5) sign its SHA-256.
 */
const digestFor = (key: KeyObject) => (key.asymmetricKeyType === 'ed25519' ? null : 'sha256');

/** Whether `signature` (base64) is a signature of the payload by `key`. */
export function isSignedWithKey(payload: Buffer, signature: string, key: KeyObject): boolean {
  try {
    return verify(digestFor(key), payload, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** The base64 signature of a payload with a private key, as cosign makes it. */
export function signWithKey(payload: Buffer, key: KeyObject): string {
  return sign(digestFor(key), payload, key).toString('base64');
}

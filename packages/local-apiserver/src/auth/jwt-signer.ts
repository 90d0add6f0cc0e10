import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isJsonObject, type JsonObject } from '../kube-object.js';

/**
 * Signs and verifies JSON Web Tokens with the server's ServiceAccount signing key: ES256 (ECDSA
 * P-256), which kube-apiserver accepts as `--service-account-signing-key-file` and which is quick to
 * generate, so every in-memory server gets its own key. With a file path the key is kept there, so
 * that tokens survive a restart. The key id is the base64url SHA-256 of the public key (DER), as
 * kube-apiserver computes it.
 */
export class JwtSigner {
  readonly keyId: string;

  private constructor(private readonly privateKey: KeyObject, readonly publicKey: KeyObject) {
    this.keyId = createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
  }

  /** Loads the PEM key at `path`, creating it (mode 0600) when absent; without a path the key lives in memory. */
  static open(path?: string): JwtSigner {
    if (path !== undefined && existsSync(path)) {
      const privateKey = createPrivateKey(readFileSync(path));
      return new JwtSigner(privateKey, createPublicKey(privateKey));
    }
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    if (path !== undefined) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    }
    return new JwtSigner(privateKey, publicKey);
  }

  sign(claims: JsonObject): string {
    const header = encodeSegment({ alg: 'ES256', kid: this.keyId });
    const payload = encodeSegment(claims);
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${header}.${payload}.${signature.toString('base64url')}`;
  }

  /** The claims of a token this key signed, or undefined (not a JWT, another key, a bad signature). */
  verify(token: string): JsonObject | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [headerText = '', payloadText = '', signatureText = ''] = parts;
    const header = decodeSegment(headerText);
    if (header?.['alg'] !== 'ES256' || (header['kid'] !== undefined && header['kid'] !== this.keyId)) return undefined;
    const signature = Buffer.from(signatureText, 'base64url');
    if (!verify('sha256', Buffer.from(`${headerText}.${payloadText}`), { key: this.publicKey, dsaEncoding: 'ieee-p1363' }, signature)) return undefined;
    return decodeSegment(payloadText);
  }
}

function encodeSegment(value: JsonObject): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decodeSegment(text: string): JsonObject | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

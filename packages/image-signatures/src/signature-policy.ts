import { createPublicKey, type KeyObject } from 'node:crypto';
import { OlmError, describeError } from '@olm/core';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { toTrustMaterial, type TrustMaterial } from '@sigstore/verify';
import { ImageSignatureErrorCodes } from './signature-errors.js';

/** A certificate identity keyless signatures must carry: the OIDC issuer and the subject (an email or URI SAN), both exact. */
export interface SignerIdentity {
  readonly issuer: string;
  readonly subject: string;
}

/** What images must be signed with: any of the public keys, or keyless certificates of the trusted root with one of the identities. */
export interface SignaturePolicy {
  /** Where it came from, for messages (`configmap olm/acme-keys`). */
  readonly source: string;
  readonly publicKeys: readonly { readonly name: string; readonly key: KeyObject }[];
  readonly keyless?: {
    readonly trustMaterial: TrustMaterial;
    /** A root listing certificate transparency logs requires an SCT from one of them in each certificate (as cosign does). */
    readonly requiresCertificateTransparency: boolean;
    readonly identities: readonly SignerIdentity[];
  };
}

/** ConfigMap keys of a policy: `<name>.pub` public keys (PEM), `trusted_root.json` and `identities.json` for keyless signatures. */
export const PolicyKeys = {
  publicKeySuffix: '.pub',
  trustedRoot: 'trusted_root.json',
  identities: 'identities.json',
} as const;

/** Most public keys and identities one policy may list (each signature is tried against each). */
export const maxPolicyEntries = 64;

function policyError(source: string, message: string, cause?: unknown): OlmError {
  return new OlmError(ImageSignatureErrorCodes.policy, `signature policy ${source}: ${message}`, cause === undefined ? {} : { cause });
}

function parseIdentities(text: string, source: string): SignerIdentity[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw policyError(source, `${PolicyKeys.identities} is not JSON (${describeError(error)}); write a list such as [{"issuer": "https://token.actions.githubusercontent.com", "subject": "https://github.com/acme/catalog/.github/workflows/release.yml@refs/heads/main"}]`);
  }
  const valid = (entry: unknown): entry is SignerIdentity =>
    typeof entry === 'object' && entry !== null && typeof (entry as SignerIdentity).issuer === 'string' && (entry as SignerIdentity).issuer !== '' && typeof (entry as SignerIdentity).subject === 'string' && (entry as SignerIdentity).subject !== '';
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every(valid)) {
    throw policyError(source, `${PolicyKeys.identities} must be a non-empty list of {"issuer": "…", "subject": "…"} (both non-empty strings)`);
  }
  if (parsed.length > maxPolicyEntries) throw policyError(source, `${PolicyKeys.identities} lists ${parsed.length} identities, more than the ${maxPolicyEntries} a policy may; split the catalogs over several policies`);
  return parsed.map(({ issuer, subject }) => ({ issuer, subject }));
}

function parseTrustedRoot(text: string, source: string): TrustMaterial & { readonly ctlogCount: number } {
  try {
    const root = TrustedRoot.fromJSON(JSON.parse(text));
    if (root.certificateAuthorities.length === 0) throw new Error('it lists no certificateAuthorities');
    if (root.tlogs.length === 0) throw new Error('it lists no tlogs');
    return { ...toTrustMaterial(root), ctlogCount: root.ctlogs.length };
  } catch (error) {
    throw policyError(source, `${PolicyKeys.trustedRoot} is not a usable Sigstore trusted root (${describeError(error)}); give the trusted_root.json of your Sigstore instance (e.g. from \`cosign trusted-root create\` or the TUF repository)`, error);
  }
}

/**
 * A policy from a ConfigMap's data: every `<name>.pub` key is a public key (PEM: ECDSA, Ed25519 or RSA);
 * `trusted_root.json` with `identities.json` allow keyless signatures. At least one of the two is needed.
 */
export function parseSignaturePolicy(data: Readonly<Record<string, string>>, source: string): SignaturePolicy {
  const publicKeys = Object.entries(data)
    .filter(([name]) => name.endsWith(PolicyKeys.publicKeySuffix))
    .map(([name, pem]) => {
      try {
        return { name, key: createPublicKey(pem) };
      } catch (error) {
        throw policyError(source, `key ${name} is not a PEM public key (${describeError(error)}); give the cosign.pub that \`cosign generate-key-pair\` or \`openssl pkey -pubout\` writes`, error);
      }
    });
  if (publicKeys.length > maxPolicyEntries) throw policyError(source, `it lists ${publicKeys.length} public keys, more than the ${maxPolicyEntries} a policy may`);
  const rootText = data[PolicyKeys.trustedRoot];
  const identitiesText = data[PolicyKeys.identities];
  if ((rootText === undefined) !== (identitiesText === undefined)) {
    throw policyError(source, `keyless signatures need both ${PolicyKeys.trustedRoot} and ${PolicyKeys.identities}; it has only ${rootText === undefined ? PolicyKeys.identities : PolicyKeys.trustedRoot}`);
  }
  let keyless: SignaturePolicy['keyless'];
  if (rootText !== undefined && identitiesText !== undefined) {
    const { ctlogCount, ...trustMaterial } = parseTrustedRoot(rootText, source);
    keyless = { trustMaterial, requiresCertificateTransparency: ctlogCount > 0, identities: parseIdentities(identitiesText, source) };
  }
  if (publicKeys.length === 0 && !keyless) {
    throw policyError(source, `it has no public key (a key named <name>${PolicyKeys.publicKeySuffix}) and no ${PolicyKeys.trustedRoot} with ${PolicyKeys.identities}; nothing could be verified`);
  }
  return { source, publicKeys, ...(keyless ? { keyless } : {}) };
}

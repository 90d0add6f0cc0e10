import { createHash, generateKeyPairSync, sign, webcrypto, type KeyObject } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import type { PayloadSigner } from '../src/sign-image.js';
import { CosignAnnotations } from '../src/cosign-format.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

/**
 * A Sigstore instance of the test's own, offline: a certificate authority standing for Fulcio and a log key
 * standing for Rekor. It issues short-lived signing certificates with Fulcio's identity extensions and
 * signs transparency log entries (SETs) as Rekor does, and writes the trusted_root.json that trusts them.
 */
export interface LocalSigstore {
  readonly trustedRoot: string;
  /** A keyless signer: a fresh key and certificate for `subject` from `issuer`, a hashedrekord entry with its SET. */
  signer(identity: { readonly issuer: string; readonly subject: string }, options?: { readonly integratedTime?: Date }): Promise<PayloadSigner>;
}

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const fulcioIssuerV1 = '1.3.6.1.4.1.57264.1.1';
const fulcioIssuerV2 = '1.3.6.1.4.1.57264.1.8';

function utf8String(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > 127) throw new Error('issuer too long for this fixture');
  return Buffer.concat([Buffer.from([0x0c, bytes.length]), bytes]);
}

/** Sorted keys, no spaces: what Rekor signs (RFC 8785 for these plain objects). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export async function startLocalSigstore(options: { readonly caValidFrom?: Date } = {}): Promise<LocalSigstore> {
  const caKeys = (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notBefore = options.caValidFrom ?? new Date(Date.now() - 24 * 3600_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=olm-test-fulcio, O=olm-test',
    notBefore,
    notAfter: new Date(Date.now() + 365 * 24 * 3600_000),
    keys: caKeys,
    signingAlgorithm: ecdsa,
    extensions: [new x509.BasicConstraintsExtension(true, 1, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true)],
  });
  const log = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const logDer = log.publicKey.export({ type: 'spki', format: 'der' });
  const logId = createHash('sha256').update(logDer).digest();
  const trustedRoot = JSON.stringify({
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [{ baseUrl: 'https://rekor.olm-test.invalid', hashAlgorithm: 'SHA2_256', publicKey: { rawBytes: logDer.toString('base64'), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: { start: notBefore.toISOString() } }, logId: { keyId: logId.toString('base64') } }],
    certificateAuthorities: [
      { subject: { organization: 'olm-test', commonName: 'olm-test-fulcio' }, uri: 'https://fulcio.olm-test.invalid', certChain: { certificates: [{ rawBytes: Buffer.from(ca.rawData).toString('base64') }] }, validFor: { start: notBefore.toISOString() } },
    ],
    ctlogs: [],
    timestampAuthorities: [],
  });
  let logIndex = 0;

  return {
    trustedRoot,
    async signer(identity, signerOptions = {}) {
      const integratedTime = signerOptions.integratedTime ?? new Date();
      const leafKeys = (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as CryptoKeyPair;
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: (++logIndex).toString(16).padStart(2, '0'),
        subject: '',
        issuer: ca.subject,
        notBefore: new Date(integratedTime.getTime() - 60_000),
        notAfter: new Date(integratedTime.getTime() + 10 * 60_000),
        publicKey: leafKeys.publicKey,
        signingKey: caKeys.privateKey,
        signingAlgorithm: ecdsa,
        extensions: [
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.3']),
          new x509.SubjectAlternativeNameExtension(identity.subject.includes('@') && !identity.subject.includes('://') ? [{ type: 'email', value: identity.subject }] : [{ type: 'url', value: identity.subject }], true),
          new x509.Extension(fulcioIssuerV1, false, Buffer.from(identity.issuer)),
          new x509.Extension(fulcioIssuerV2, false, utf8String(identity.issuer)),
        ],
      });
      const leafPrivate = (await import('node:crypto')).KeyObject.from(leafKeys.privateKey as unknown as webcrypto.CryptoKey) as KeyObject;
      const certificatePem = leaf.toString('pem');
      return (payload) => {
        const signature = sign('sha256', payload, leafPrivate).toString('base64');
        const body = canonicalJson({
          apiVersion: '0.0.1',
          kind: 'hashedrekord',
          spec: {
            data: { hash: { algorithm: 'sha256', value: createHash('sha256').update(payload).digest('hex') } },
            signature: { content: signature, publicKey: { content: Buffer.from(certificatePem).toString('base64') } },
          },
        });
        const entry = { body: Buffer.from(body).toString('base64'), integratedTime: Math.floor(integratedTime.getTime() / 1000), logIndex, logID: logId.toString('hex') };
        const signedEntryTimestamp = sign('sha256', Buffer.from(canonicalJson(entry)), log.privateKey).toString('base64');
        return {
          signature,
          annotations: {
            [CosignAnnotations.certificate]: certificatePem,
            [CosignAnnotations.chain]: ca.toString('pem'),
            [CosignAnnotations.bundle]: JSON.stringify({ SignedEntryTimestamp: signedEntryTimestamp, Payload: entry }),
          },
        };
      };
    },
  };
}

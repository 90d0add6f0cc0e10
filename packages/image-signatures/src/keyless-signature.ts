import { createHash, X509Certificate } from 'node:crypto';
import { bundleFromJSON } from '@sigstore/bundle';
import { toSignedEntity, Verifier } from '@sigstore/verify';
import { CosignAnnotations } from './cosign-format.js';
import type { SignaturePolicy } from './signature-policy.js';

/** cosign's `dev.sigstore.cosign/bundle` annotation: the transparency log's promise of inclusion and the entry. */
interface CosignRekorBundle {
  readonly SignedEntryTimestamp?: string;
  readonly Payload?: { readonly body?: string; readonly integratedTime?: number; readonly logIndex?: number; readonly logID?: string };
}

/** The Sigstore bundle (v0.1) equivalent of one keyless cosign signature layer, so that sigstore-js verifies it. */
function toSigstoreBundle(payload: Buffer, signature: string, annotations: Readonly<Record<string, string>>) {
  const certificate = new X509Certificate(annotations[CosignAnnotations.certificate] ?? '');
  const rekorText = annotations[CosignAnnotations.bundle];
  if (rekorText === undefined) throw new Error(`it has no transparency log entry (annotation ${CosignAnnotations.bundle}); sign with the transparency log`);
  const rekor = JSON.parse(rekorText) as CosignRekorBundle;
  const entry = rekor.Payload;
  if (!rekor.SignedEntryTimestamp || !entry?.body || entry.integratedTime === undefined || entry.logIndex === undefined || !entry.logID) {
    throw new Error(`its transparency log entry (annotation ${CosignAnnotations.bundle}) lacks SignedEntryTimestamp or Payload.body, integratedTime, logIndex or logID`);
  }
  const body = JSON.parse(Buffer.from(entry.body, 'base64').toString('utf8')) as { kind?: string; apiVersion?: string };
  return bundleFromJSON({
    mediaType: 'application/vnd.dev.sigstore.bundle+json;version=0.1',
    verificationMaterial: {
      x509CertificateChain: { certificates: [{ rawBytes: certificate.raw.toString('base64') }] },
      tlogEntries: [
        {
          logIndex: String(entry.logIndex),
          logId: { keyId: Buffer.from(entry.logID, 'hex').toString('base64') },
          kindVersion: { kind: body.kind ?? '', version: body.apiVersion ?? '' },
          integratedTime: String(entry.integratedTime),
          inclusionPromise: { signedEntryTimestamp: rekor.SignedEntryTimestamp },
          canonicalizedBody: entry.body,
        },
      ],
    },
    messageSignature: {
      messageDigest: { algorithm: 'SHA2_256', digest: createHash('sha256').update(payload).digest('base64') },
      signature,
    },
  });
}

/**
 * Verifies a keyless signature offline with sigstore-js: the certificate chains to a certificate authority of
 * the trusted root (valid when the log integrated the entry), carries an SCT of one of its CT logs when the
 * root lists any, the transparency log entry's signed timestamp verifies with one of its logs' keys and the
 * entry names this signature and payload digest, the signature verifies with the certificate's key, and the
 * certificate's identity is one the policy allows. Answers who signed, or throws why not.
 */
export function verifyKeylessSignature(payload: Buffer, signature: string, annotations: Readonly<Record<string, string>>, keyless: NonNullable<SignaturePolicy['keyless']>): string {
  const bundle = toSigstoreBundle(payload, signature, annotations);
  const verifier = new Verifier(keyless.trustMaterial, { tlogThreshold: 1, ctlogThreshold: keyless.requiresCertificateTransparency ? 1 : 0, timestampThreshold: 1 });
  const signer = verifier.verify(toSignedEntity(bundle, payload));
  const subject = signer.identity?.subjectAlternativeName;
  const issuer = signer.identity?.extensions?.issuer;
  const allowed = keyless.identities.find((identity) => identity.subject === subject && identity.issuer === issuer);
  if (!allowed) {
    throw new Error(`its certificate's identity ${JSON.stringify(subject)} (issuer ${JSON.stringify(issuer)}) is not one the policy allows (${keyless.identities.map((identity) => `${identity.subject} from ${identity.issuer}`).join(', ')})`);
  }
  return `${subject} (issuer ${issuer})`;
}

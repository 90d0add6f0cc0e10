import { createHash, createPrivateKey, getRandomValues, KeyObject, webcrypto, X509Certificate } from 'node:crypto';

/**
 * The certificates OLM makes for the deployments serving a CSV's owned APIServices and webhooks, as
 * upstream's `pkg/controller/certs`: a self-signed CA and a serving certificate signed by it, both ECDSA
 * P-256 with SHA-256, organization "Red Hat, Inc.", valid two years and renewed one day before they
 * expire. Creation uses `@peculiar/x509` over Node's WebCrypto; checks use Node's `X509Certificate`.
 */

export const certificateOrganization = 'Red Hat, Inc.';
const dayMs = 24 * 60 * 60 * 1000;
/** How long a generated CA and serving certificate are valid (upstream `DefaultCertValidFor`, two years). */
export const certificateValidForMs = 730 * dayMs;
/** How long before expiry a certificate is renewed (upstream `DefaultCertMinFresh`, one day). */
export const certificateMinFreshMs = dayMs;

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

type X509Library = typeof import('@peculiar/x509');
let library: Promise<X509Library> | undefined;

/**
 * Loaded on first use, so that a process without APIServices or webhooks never loads it nor the global
 * `Reflect` metadata polyfill its tsyringe container needs.
 */
function x509(): Promise<X509Library> {
  library ??= (async () => {
    await import('reflect-metadata');
    const loaded = await import('@peculiar/x509');
    loaded.cryptoProvider.set(globalThis.crypto);
    return loaded;
  })();
  return library;
}

/** A CA able to sign serving certificates; its private key lives only in memory, as upstream's. */
export interface CertificateAuthority {
  readonly certPem: string;
  readonly notAfter: Date;
  readonly sign: (hosts: readonly string[], now: Date) => Promise<ServingCertificate>;
}

export interface ServingCertificate {
  /** PEM `CERTIFICATE`. */
  readonly certPem: string;
  /** PEM `EC PRIVATE KEY` (SEC 1), as Go's `x509.MarshalECPrivateKey`. */
  readonly keyPem: string;
}

/** When a certificate expiring at `notAfter` must be renewed. */
export function rotationTime(notAfter: Date): Date {
  return new Date(notAfter.getTime() - certificateMinFreshMs);
}

/** A random positive serial number below 2^63, in hex (upstream draws it below MaxInt64). */
function serialNumber(): string {
  const bytes = getRandomValues(new Uint8Array(8));
  bytes[0] = bytes[0]! & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

const subject = () => [{ O: [certificateOrganization] }];

function keyUsages(lib: X509Library, ca: boolean) {
  // As upstream: both certificates may sign certificates and authenticate clients and servers.
  return [
    new lib.BasicConstraintsExtension(ca, undefined, true),
    new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature | lib.KeyUsageFlags.keyCertSign, true),
    new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.clientAuth, lib.ExtendedKeyUsage.serverAuth], false),
  ];
}

function privateKeyPem(pkcs8: ArrayBuffer): string {
  return createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' }).export({ type: 'sec1', format: 'pem' }) as string;
}

/** A new self-signed CA valid from `now` for two years (upstream `GenerateCA`). */
export async function generateCertificateAuthority(now: Date): Promise<CertificateAuthority> {
  const lib = await x509();
  const notAfter = new Date(now.getTime() + certificateValidForMs);
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: subject(),
    notBefore: now,
    notAfter,
    signingAlgorithm: algorithm,
    keys,
    extensions: [...keyUsages(lib, true), await lib.SubjectKeyIdentifierExtension.create(keys.publicKey)],
  });
  const certPem = certificate.toString('pem');
  return {
    certPem,
    notAfter,
    async sign(hosts, signedAt) {
      const servingKeys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
      const serving = await lib.X509CertificateGenerator.create({
        serialNumber: serialNumber(),
        subject: subject(),
        issuer: certificate.subject,
        notBefore: signedAt,
        notAfter,
        signingAlgorithm: algorithm,
        publicKey: servingKeys.publicKey,
        signingKey: keys.privateKey,
        extensions: [
          ...keyUsages(lib, false),
          new lib.SubjectAlternativeNameExtension(hosts.map((host) => ({ type: 'dns' as const, value: host }))),
          // The certificate's subject is its issuer's (as upstream's): OpenSSL-based clients tell it from a
          // self-signed one only by the key identifiers, so it carries its own besides its issuer's.
          await lib.SubjectKeyIdentifierExtension.create(servingKeys.publicKey),
          await lib.AuthorityKeyIdentifierExtension.create(keys.publicKey),
        ],
      });
      const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', servingKeys.privateKey);
      return { certPem: serving.toString('pem'), keyPem: privateKeyPem(pkcs8) };
    },
  };
}

/** Hex SHA-256 of a PEM text (upstream `PEMSHA256`: the `olmcahash` annotation values). */
export function pemSha256(pem: string): string {
  return createHash('sha256').update(pem).digest('hex');
}

function parse(pem: string | undefined): X509Certificate | undefined {
  if (!pem) return undefined;
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

const validFrom = (certificate: X509Certificate) => new Date(certificate.validFrom);
const validTo = (certificate: X509Certificate) => new Date(certificate.validTo);

/** The material OLM keeps in a serving certificate Secret. */
export interface ServingMaterial {
  readonly caPem?: string;
  readonly certPem?: string;
  readonly keyPem?: string;
}

/**
 * Why the serving certificate must be made again (upstream `shouldRotateCerts`), or undefined: the CA,
 * the certificate or its key is missing or unreadable, either certificate is not valid at `now` or is
 * within a day of expiring, the certificate is not signed by the CA, does not name every host, or does
 * not belong to the key.
 */
export function servingCertificateProblem(material: ServingMaterial, hosts: readonly string[], now: Date): string | undefined {
  if (!material.caPem) return 'missing CA certificate';
  if (!material.certPem) return 'missing serving certificate';
  if (!material.keyPem) return 'missing serving key';
  const ca = parse(material.caPem);
  if (!ca) return 'malformed CA certificate';
  const certificate = parse(material.certPem);
  if (!certificate) return 'malformed serving certificate';
  let key: KeyObject;
  try {
    key = createPrivateKey(material.keyPem);
  } catch {
    return 'malformed serving key';
  }
  for (const [name, item] of [['CA', ca], ['serving', certificate]] as const) {
    if (now < validFrom(item) || now > validTo(item)) return `${name} certificate is not valid at ${now.toISOString()}`;
    if (now > rotationTime(validTo(item))) return `${name} certificate expires at ${validTo(item).toISOString()}`;
  }
  if (!ca.ca || !certificate.checkIssued(ca) || !certificate.verify(ca.publicKey)) return 'serving certificate is not signed by the CA';
  for (const host of hosts) {
    if (certificate.checkHost(host, { wildcards: false }) === undefined) return `serving certificate is not valid for ${host}`;
  }
  if (!certificate.checkPrivateKey(key)) return 'serving key does not match the certificate';
  return undefined;
}

/** When the serving certificate in the PEM is due for renewal, or undefined when it cannot be read. */
export function certificateRotatesAt(certPem: string | undefined): Date | undefined {
  const certificate = parse(certPem);
  return certificate ? rotationTime(validTo(certificate)) : undefined;
}

/** Whether the text is a PEM certificate (upstream `PEMToCert` succeeding). */
export function isCertificatePem(pem: string | undefined): boolean {
  return parse(pem) !== undefined;
}

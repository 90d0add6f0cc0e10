import { getRandomValues, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * A self-signed serving certificate made in-process (ECDSA P-256, SHA-256): a distroless image has
 * no `openssl`, and Node has no X.509 writer, so `@peculiar/x509` builds it over Node's WebCrypto.
 * The certificate is its own CA (`caBundle` of an APIService, `ca` of a client), for the given DNS
 * names and IPs.
 */
export interface ServingCertificate {
  /** PEM certificate. */
  readonly cert: string;
  /** PEM PKCS#8 private key. */
  readonly key: string;
}

export interface SelfSignedCertificateOptions {
  /** The subject common name; default the first host. */
  readonly commonName?: string;
  /** DNS names and IP addresses the certificate is valid for. */
  readonly hosts: readonly string[];
  /** Validity in days from now; default 365. */
  readonly days?: number;
  /** The current time (tests). */
  readonly now?: Date;
}

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

type X509Library = typeof import('@peculiar/x509');
let library: Promise<X509Library> | undefined;

/** Loaded on first use: importing it registers its algorithms, which only a TLS server needs. */
function x509(): Promise<X509Library> {
  library ??= (async () => {
    await import('reflect-metadata'); // the polyfill its DI container (tsyringe) needs
    const loaded = await import('@peculiar/x509');
    loaded.cryptoProvider.set(crypto);
    return loaded;
  })();
  return library;
}

/** A random positive 128-bit serial number, in hex. */
function serialNumber(): string {
  const bytes = getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) || 1;
  return Buffer.from(bytes).toString('hex');
}

function pem(label: string, der: ArrayBuffer): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export async function selfSignedCertificate(options: SelfSignedCertificateOptions): Promise<ServingCertificate> {
  if (options.hosts.length === 0) throw new Error('a serving certificate needs at least one DNS name or IP address');
  const lib = await x509();
  const now = options.now ?? new Date();
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: [{ CN: [options.commonName ?? options.hosts[0]!] }],
    // An hour back: clocks of the aggregator and this process may disagree a little.
    notBefore: new Date(now.getTime() - 60 * 60 * 1000),
    notAfter: new Date(now.getTime() + (options.days ?? 365) * 24 * 60 * 60 * 1000),
    signingAlgorithm: algorithm,
    keys,
    extensions: [
      new lib.BasicConstraintsExtension(true, undefined, true),
      // digitalSignature and keyCertSign: it signs TLS handshakes and, being its own CA, itself.
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature | lib.KeyUsageFlags.keyCertSign, true),
      new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth], false),
      new lib.SubjectAlternativeNameExtension(options.hosts.map((host) => ({ type: isIP(host) !== 0 ? ('ip' as const) : ('dns' as const), value: host }))),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: certificate.toString('pem'), key: pem('PRIVATE KEY', key) };
}

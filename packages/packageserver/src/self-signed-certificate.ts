import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * A self-signed serving certificate made in-process (ECDSA P-256, SHA-256): Node has no X.509
 * writer and a distroless image has no `openssl`, so the DER is written here. The certificate is
 * its own CA (`caBundle` of an APIService, `ca` of a client), for the given DNS names and IPs.
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

function length(size: number): Buffer {
  if (size < 0x80) return Buffer.from([size]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);
const octetString = (content: Buffer) => tlv(0x04, content);
const bitString = (content: Buffer, unusedBits = 0) => tlv(0x03, Buffer.from([unusedBits]), content);
const explicit = (tagNumber: number, content: Buffer) => tlv(0xa0 | tagNumber, content);
const booleanTrue = () => tlv(0x01, Buffer.from([0xff]));

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) chunk.unshift((value & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function integer(bytes: Buffer): Buffer {
  return tlv(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

/** UTCTime until 2049, GeneralizedTime after, as RFC 5280 requires. */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, 'ascii')) : tlv(0x18, Buffer.from(`${iso}Z`, 'ascii'));
}

function ipBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = address.includes('::') ? groups(tail) : [];
  const all = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return Buffer.concat(all.map((group) => Buffer.from(group.padStart(4, '0'), 'hex')));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [booleanTrue()] : []), octetString(value));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export function selfSignedCertificate(options: SelfSignedCertificateOptions): ServingCertificate {
  if (options.hosts.length === 0) throw new Error('a serving certificate needs at least one DNS name or IP address');
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const notAfter = new Date(now.getTime() + (options.days ?? 365) * 24 * 60 * 60 * 1000);
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 1) & 0x7f) || 1;
  const name = sequence(set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(options.commonName ?? options.hosts[0] ?? '', 'utf8')))));
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const alternativeNames = sequence(
    ...options.hosts.map((host) => (isIP(host) !== 0 ? tlv(0x87, ipBytes(host)) : tlv(0x82, Buffer.from(host, 'ascii')))),
  );
  const extensions = sequence(
    extension('2.5.29.19', true, sequence(booleanTrue())),
    // digitalSignature and keyCertSign: it signs TLS handshakes and, being its own CA, itself.
    extension('2.5.29.15', true, bitString(Buffer.from([0x84]), 2)),
    extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))),
    extension('2.5.29.17', false, alternativeNames),
  );
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, ecdsaWithSha256, bitString(signature));
  return { cert: pem('CERTIFICATE', certificate), key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

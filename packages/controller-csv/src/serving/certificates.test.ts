import { createPrivateKey, X509Certificate } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  certificateRotatesAt,
  generateCertificateAuthority,
  isCertificatePem,
  pemSha256,
  rotationTime,
  servingCertificateProblem,
  type CertificateAuthority,
  type ServingCertificate,
} from './certificates.js';

const day = 24 * 60 * 60 * 1000;
const hosts = ['svc.ns', 'svc.ns.svc', 'svc.ns.svc.cluster.local'];
const issuedAt = new Date('2030-03-01T12:00:00Z');
let ca: CertificateAuthority;
let serving: ServingCertificate;

beforeAll(async () => {
  ca = await generateCertificateAuthority(issuedAt);
  serving = await ca.sign(hosts, issuedAt);
});

describe('generateCertificateAuthority and sign', () => {
  it('makes a self-signed ECDSA P-256 CA and a serving certificate it signed, for the hosts, valid two years from the given time', () => {
    const authority = new X509Certificate(ca.certPem);
    const certificate = new X509Certificate(serving.certPem);
    expect(authority.ca).toBe(true);
    expect(authority.subject).toBe('O=Red Hat\\, Inc.');
    expect(authority.checkIssued(authority)).toBe(true);
    expect(authority.verify(authority.publicKey)).toBe(true);
    expect(certificate.ca).toBe(false);
    expect(certificate.checkIssued(authority)).toBe(true);
    expect(certificate.verify(authority.publicKey)).toBe(true);
    expect(certificate.subjectAltName).toBe('DNS:svc.ns, DNS:svc.ns.svc, DNS:svc.ns.svc.cluster.local');
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.1']);
    expect(certificate.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(certificate.checkPrivateKey(createPrivateKey(serving.keyPem))).toBe(true);
    expect(serving.keyPem).toMatch(/^-----BEGIN EC PRIVATE KEY-----\n/);
    for (const item of [authority, certificate]) {
      expect(new Date(item.validFrom)).toEqual(issuedAt);
      expect(new Date(item.validTo)).toEqual(new Date(issuedAt.getTime() + 730 * day));
    }
    expect(ca.notAfter).toEqual(new Date(issuedAt.getTime() + 730 * day));
  });

  it('draws a new key and serial number for each certificate', async () => {
    const other = await ca.sign(hosts, issuedAt);
    expect(new X509Certificate(other.certPem).serialNumber).not.toBe(new X509Certificate(serving.certPem).serialNumber);
    expect(other.keyPem).not.toBe(serving.keyPem);
  });
});

describe('servingCertificateProblem', () => {
  const material = () => ({ caPem: ca.certPem, certPem: serving.certPem, keyPem: serving.keyPem });
  const at = (offsetMs: number) => new Date(issuedAt.getTime() + offsetMs);

  it('accepts valid material until a day before it expires', () => {
    expect(servingCertificateProblem(material(), hosts, at(1000))).toBeUndefined();
    expect(servingCertificateProblem(material(), hosts, at(729 * day))).toBeUndefined();
  });

  it('renews within a day of expiry, after it, and before it is valid', () => {
    expect(servingCertificateProblem(material(), hosts, at(729 * day + 1))).toMatch(/^CA certificate expires at /);
    expect(servingCertificateProblem(material(), hosts, at(731 * day))).toMatch(/^CA certificate is not valid at /);
    expect(servingCertificateProblem(material(), hosts, at(-1000))).toMatch(/^CA certificate is not valid at /);
  });

  it('renews missing or unreadable material', () => {
    expect(servingCertificateProblem({ ...material(), caPem: undefined }, hosts, issuedAt)).toBe('missing CA certificate');
    expect(servingCertificateProblem({ ...material(), certPem: '' }, hosts, issuedAt)).toBe('missing serving certificate');
    expect(servingCertificateProblem({ ...material(), keyPem: undefined }, hosts, issuedAt)).toBe('missing serving key');
    expect(servingCertificateProblem({ ...material(), caPem: 'malformed' }, hosts, issuedAt)).toBe('malformed CA certificate');
    expect(servingCertificateProblem({ ...material(), certPem: 'malformed' }, hosts, issuedAt)).toBe('malformed serving certificate');
    expect(servingCertificateProblem({ ...material(), keyPem: 'malformed' }, hosts, issuedAt)).toBe('malformed serving key');
  });

  it('renews a certificate of another CA, for other hosts, or with another key', async () => {
    const otherCa = await generateCertificateAuthority(issuedAt);
    expect(servingCertificateProblem({ ...material(), caPem: otherCa.certPem }, hosts, issuedAt)).toBe('serving certificate is not signed by the CA');
    expect(servingCertificateProblem(material(), [...hosts, 'other.ns.svc'], issuedAt)).toBe('serving certificate is not valid for other.ns.svc');
    const other = await ca.sign(hosts, issuedAt);
    expect(servingCertificateProblem({ ...material(), keyPem: other.keyPem }, hosts, issuedAt)).toBe('serving key does not match the certificate');
    // The CA is no serving certificate.
    expect(servingCertificateProblem({ ...material(), certPem: ca.certPem }, hosts, issuedAt)).toBe('serving certificate is not valid for svc.ns');
  });
});

describe('helpers', () => {
  it('rotationTime is a day before expiry; certificateRotatesAt reads it from a PEM', () => {
    expect(rotationTime(new Date('2030-01-02T00:00:00Z'))).toEqual(new Date('2030-01-01T00:00:00Z'));
    expect(certificateRotatesAt(serving.certPem)).toEqual(new Date(issuedAt.getTime() + 729 * day));
    expect(certificateRotatesAt('nonsense')).toBeUndefined();
  });

  it('pemSha256 is the hex SHA-256 of the text; isCertificatePem tells certificates from anything else', () => {
    expect(pemSha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(isCertificatePem(ca.certPem)).toBe(true);
    expect(isCertificatePem(serving.keyPem)).toBe(false);
    expect(isCertificatePem(undefined)).toBe(false);
  });
});

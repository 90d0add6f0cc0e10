import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from './self-signed-certificate.js';

function handshake(port: number, options: { ca: string; servername: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const call = request({ host: '127.0.0.1', port, path: '/', ca: options.ca, servername: options.servername }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve(body));
    });
    call.on('error', reject);
    call.end();
  });
}

describe('selfSignedCertificate', () => {
  it('is a valid X.509 certificate for the DNS names and IPs, valid from an hour ago for the given days', async () => {
    const now = new Date('2030-01-02T03:04:05Z');
    const material = await selfSignedCertificate({ hosts: ['packageserver-service.olm.svc', 'localhost', '127.0.0.1', '::1'], days: 30, now });
    const certificate = new X509Certificate(material.cert);
    expect(certificate.subject).toBe('CN=packageserver-service.olm.svc');
    expect(certificate.subjectAltName).toBe('DNS:packageserver-service.olm.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(certificate.checkHost('packageserver-service.olm.svc')).toBe('packageserver-service.olm.svc');
    expect(certificate.checkHost('other.olm.svc')).toBeUndefined();
    expect(certificate.checkIP('::1')).toBe('::1');
    expect(certificate.ca).toBe(true);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(new Date(certificate.validFrom).toISOString()).toBe('2030-01-02T02:04:05.000Z');
    expect(new Date(certificate.validTo).toISOString()).toBe('2030-02-01T03:04:05.000Z');
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(certificate.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(certificate.serialNumber).toMatch(/^[0-7][0-9A-F]{31}$/);
    // The key is PKCS#8 and is the certificate's.
    expect(material.key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const publicOfKey = createPublicKey(createPrivateKey(material.key)).export({ type: 'spki', format: 'der' });
    expect(publicOfKey.equals(certificate.publicKey.export({ type: 'spki', format: 'der' }))).toBe(true);
    expect(certificate.checkPrivateKey(createPrivateKey(material.key))).toBe(true);
  });

  it('is signed by its own key only, and a new certificate has a new key and serial', async () => {
    const first = new X509Certificate((await selfSignedCertificate({ hosts: ['a.example'] })).cert);
    const second = new X509Certificate((await selfSignedCertificate({ hosts: ['a.example'] })).cert);
    expect(first.verify(first.publicKey)).toBe(true);
    expect(first.verify(second.publicKey)).toBe(false);
    expect(first.checkIssued(first)).toBe(true);
    expect(first.serialNumber).not.toBe(second.serialNumber);
    expect(first.subjectAltName).toBe('DNS:a.example');
    expect(first.subject).toBe('CN=a.example');
  });

  it('serves TLS that a client verifies with it as the CA, for a name it lists only', async () => {
    const material = await selfSignedCertificate({ hosts: ['backend.ns.svc'] });
    const server = createServer(material, (_request, response) => response.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      expect(await handshake(port, { ca: material.cert, servername: 'backend.ns.svc' })).toBe('hello');
      await expect(handshake(port, { ca: material.cert, servername: 'other.ns.svc' })).rejects.toThrow(/does not match certificate's altnames/);
      await expect(handshake(port, { ca: (await selfSignedCertificate({ hosts: ['backend.ns.svc'] })).cert, servername: 'backend.ns.svc' })).rejects.toThrow(/self.signed certificate/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('dates past 2049 correctly, takes a common name, and refuses to make a certificate for nobody', async () => {
    const certificate = new X509Certificate((await selfSignedCertificate({ hosts: ['late.example'], commonName: 'packageserver', now: new Date('2049-12-31T12:00:00Z'), days: 2 })).cert);
    expect(new Date(certificate.validFrom).toISOString()).toBe('2049-12-31T11:00:00.000Z');
    expect(new Date(certificate.validTo).toISOString()).toBe('2050-01-02T12:00:00.000Z');
    expect(certificate.subject).toBe('CN=packageserver');
    await expect(selfSignedCertificate({ hosts: [] })).rejects.toThrow('a serving certificate needs at least one DNS name or IP address');
  });
});

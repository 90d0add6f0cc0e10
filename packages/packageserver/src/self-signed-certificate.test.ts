import { X509Certificate } from 'node:crypto';
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
  it('is a valid X.509 certificate for the DNS names and IPs, valid from an hour ago for the given days', () => {
    const now = new Date('2030-01-02T03:04:05Z');
    const material = selfSignedCertificate({ hosts: ['packageserver-service.olm.svc', 'localhost', '127.0.0.1', '::1'], days: 30, now });
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
    expect(material.key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('serves TLS that a client verifies with it as the CA, for a name it lists only', async () => {
    const material = selfSignedCertificate({ hosts: ['backend.ns.svc'] });
    const server = createServer(material, (_request, response) => response.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      expect(await handshake(port, { ca: material.cert, servername: 'backend.ns.svc' })).toBe('hello');
      await expect(handshake(port, { ca: material.cert, servername: 'other.ns.svc' })).rejects.toThrow(/does not match certificate's altnames/);
      await expect(handshake(port, { ca: selfSignedCertificate({ hosts: ['backend.ns.svc'] }).cert, servername: 'backend.ns.svc' })).rejects.toThrow(/self.signed certificate/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('uses GeneralizedTime past 2049 and refuses to make a certificate for nobody', () => {
    const certificate = new X509Certificate(selfSignedCertificate({ hosts: ['late.example'], now: new Date('2049-12-31T12:00:00Z'), days: 2 }).cert);
    expect(new Date(certificate.validTo).toISOString()).toBe('2050-01-02T12:00:00.000Z');
    expect(() => selfSignedCertificate({ hosts: [] })).toThrow('a serving certificate needs at least one DNS name or IP address');
  });
});

import { Agent as HttpsAgent } from 'node:https';
import { describe, expect, it } from 'vitest';
import { reuseConnections, type ConnectionPool } from './http-transport.js';

/** What client-node hands over per request: a fresh agent with fresh Buffers, as it reads the kubeconfig each time. */
function requestWith(options: Record<string, unknown>) {
  let agent: unknown = new HttpsAgent(options);
  return { getAgent: () => agent, setAgent: (next: unknown) => (agent = next), agent: () => agent };
}

describe('reuseConnections', () => {
  const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

  it('gives every request with the same TLS options the same keep-alive agent, though its Buffers are new', () => {
    const pool: ConnectionPool = {};
    const first = requestWith({ ca: Buffer.from(ca), rejectUnauthorized: true });
    const second = requestWith({ ca: Buffer.from(ca), rejectUnauthorized: true });
    reuseConnections(pool, first);
    reuseConnections(pool, second);
    expect(first.agent()).toBe(second.agent());
    expect((first.agent() as HttpsAgent & { keepAlive: boolean }).keepAlive).toBe(true);
  });

  it('builds a new agent when a certificate, a key in a pfx entry or the CA changes', () => {
    const pool: ConnectionPool = {};
    const seen = new Set<unknown>();
    for (const options of [
      { ca: Buffer.from(ca) },
      { ca: Buffer.from(ca.replace('MIIB', 'MIIC')) },
      { ca: Buffer.from(ca.replace('MIIB', 'MIIC')), cert: Buffer.from('one') },
      { ca: Buffer.from(ca.replace('MIIB', 'MIIC')), cert: Buffer.from('two') },
      { ca: Buffer.from(ca.replace('MIIB', 'MIIC')), cert: Buffer.from('two'), pfx: [{ buf: Buffer.from('a'), passphrase: 'x' }] },
      { ca: Buffer.from(ca.replace('MIIB', 'MIIC')), cert: Buffer.from('two'), pfx: [{ buf: Buffer.from('a'), passphrase: 'y' }] },
    ]) {
      const request = requestWith(options);
      reuseConnections(pool, request);
      seen.add(request.agent());
    }
    expect(seen.size).toBe(6);
  });
});

import { Writable } from 'node:stream';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/runtime/logger.js';
import { startOperationsServer } from '../src/runtime/operations-server.js';

describe('operations endpoints', () => {
  it('serves metrics in the Prometheus format, health, and readiness once ready', async () => {
    const registry = new Registry();
    new Counter({ name: 'csv_upgrade_count', help: 'Monotonic count of CSV upgrades', registers: [registry] }).inc(2);
    let ready = false;
    const server = await startOperationsServer({ port: 0, host: '127.0.0.1', metrics: registry, isReady: () => ready });
    try {
      const metrics = await fetch(`${server.url}/metrics`);
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      expect(await metrics.text()).toMatch(/^csv_upgrade_count 2$/m);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      ready = true;
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});

describe('logger', () => {
  it('writes one JSON object per line with level, message and fields, honouring the level', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).trim().split('\n'));
        done();
      },
    });
    const logger = createLogger({ level: 'info', destination }).child({ controller: 'csv' });
    logger.debug('hidden');
    logger.warn('requirements not met', { csv: 'etcd.v1' });
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ level: 40, msg: 'requirements not met', csv: 'etcd.v1', controller: 'csv', name: 'olm' });
  });
});

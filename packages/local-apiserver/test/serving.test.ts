import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubeConfigOf, startTestServer } from './helpers.js';

describe('serving options', () => {
  it('serves HTTPS with a self-signed certificate that the kubeconfig trusts', async () => {
    const server = await startTestServer({ tls: true, token: 'secret-token' });
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(server.kubeconfig).toContain('certificate-authority-data');
      const config = kubeConfigOf(server);
      const list = await config.makeApiClient(CoreV1Api).listNamespace();
      expect(list.items.length).toBe(4);
    } finally {
      await server.stop();
    }
  });

  it('requires the bearer token when one is configured', async () => {
    const server = await startTestServer({ token: 'secret-token' });
    try {
      const anonymous = await fetch(`${server.url}/api/v1/namespaces`);
      expect(anonymous.status).toBe(403);
      expect(await anonymous.json()).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
      const wrong = await fetch(`${server.url}/api/v1/namespaces`, { headers: { Authorization: 'Bearer wrong-token' } });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      const authorized = await fetch(`${server.url}/api/v1/namespaces`, { headers: { Authorization: 'Bearer secret-token' } });
      expect(authorized.status).toBe(200);
      const config = kubeConfigOf(server);
      expect((await config.makeApiClient(CoreV1Api).listNamespace()).items.length).toBe(4);
    } finally {
      await server.stop();
    }
  });

  it('listening on every interface, accepts any Host but still requires a credential', async () => {
    const server = await startTestServer({ host: '0.0.0.0' });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect((await fetch(`http://127.0.0.1:${server.port}/api/v1/namespaces`)).status).toBe(403);
      const served = await fetch(`http://127.0.0.1:${server.port}/api/v1/namespaces`, { headers: { Authorization: `Bearer ${server.token}`, Host: `olm.example.test:${server.port}` } });
      expect(served.status).toBe(200);
      expect(((await served.json()) as { items: unknown[] }).items).toHaveLength(4);
    } finally {
      await server.stop();
    }
  });

  it('survives garbage on the wire', async () => {
    const server = await startTestServer();
    try {
      const { connect } = await import('node:net');
      const reply = await new Promise<string>((resolve) => {
        let received = '';
        const socket = connect(server.port, '127.0.0.1', () => socket.end('NOT HTTP AT ALL\r\n\r\n'));
        socket.on('data', (chunk) => {
          received += chunk.toString();
        });
        socket.on('close', () => resolve(received));
        socket.on('error', () => resolve(received));
      });
      expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request/);
      const health = await fetch(`${server.url}/readyz`, { headers: { Authorization: `Bearer ${server.token}` } });
      expect(await health.text()).toBe('ok');
    } finally {
      await server.stop();
    }
  });
});

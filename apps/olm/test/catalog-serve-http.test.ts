import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate } from '@olm/packageserver';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/program.js';
import { runCliCaptured } from './run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'olm-catalog-serve-http-'));
const dir = join(root, 'demo-catalog');
mkdirSync(join(dir, 'etcd'), { recursive: true });
writeFileSync(
  join(dir, 'etcd', 'catalog.yaml'),
  [
    'schema: olm.package',
    'name: etcd',
    'defaultChannel: stable',
    '---',
    'schema: olm.channel',
    'name: stable',
    'package: etcd',
    'entries:',
    '- name: etcd.v1.0.0',
    '---',
    'schema: olm.bundle',
    'name: etcd.v1.0.0',
    'package: etcd',
    'image: quay.io/etcd/bundle:1.0.0',
    'properties:',
    '- type: olm.package',
    '  value: {packageName: etcd, version: 1.0.0}',
    '',
  ].join('\n'),
);

function fetchText(url: string, tls: { ca?: string; insecure?: boolean }): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request(url, { ...(tls.ca === undefined ? {} : { ca: tls.ca }), rejectUnauthorized: tls.insecure !== true, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], body }));
    });
    call.on('error', reject);
    call.end();
  });
}

/** Runs `olm catalog serve` in-process until the HTTP line is printed, calls `use`, then stops it as SIGTERM would. */
async function whileServing(args: readonly string[], use: (allUrl: string) => Promise<void>): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const run = runCli(['catalog', 'serve', dir, '--port', '0', ...args]);
  try {
    let url: string | undefined;
    while (url === undefined) {
      url = /^serving catalogd's HTTP API on (\S+)$/m.exec(stdout)?.[1];
      if (url === undefined) await Promise.race([run.then(() => Promise.reject(new Error(`olm catalog serve ended early:\n${stdout}`))), new Promise((resolve) => setTimeout(resolve, 20))]);
    }
    await use(url);
  } finally {
    process.emit('SIGTERM');
    const code = await run;
    out.mockRestore();
    return { code, stdout };
  }
}

describe('olm catalog serve --http', () => {
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("serves catalogd's API next to gRPC from the same catalog, over HTTPS with a self-signed certificate", async () => {
    const result = await whileServing(['--http', '0'], async (allUrl) => {
      expect(allUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/catalogs\/demo-catalog\/api\/v1\/all$/);
      const all = await fetchText(allUrl, { insecure: true });
      expect(all.status).toBe(200);
      expect(all.type).toBe('application/jsonl');
      expect(all.body.split('\n').slice(0, -1).map((line) => (JSON.parse(line) as { schema: string }).schema)).toEqual(['olm.package', 'olm.channel', 'olm.bundle']);
      const metas = await fetchText(allUrl.replace(/all$/, 'metas?schema=olm.bundle&package=etcd'), { insecure: true });
      expect(JSON.parse(metas.body)).toMatchObject({ schema: 'olm.bundle', name: 'etcd.v1.0.0', image: 'quay.io/etcd/bundle:1.0.0' });
      await expect(fetchText(allUrl, {})).rejects.toThrow(/self.signed certificate/);
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^serving .* \(1 packages, 1 bundles\) on 127\.0\.0\.1:\d+\nserving catalogd's HTTP API on https:\/\/127\.0\.0\.1:\d+\/catalogs\/demo-catalog\/api\/v1\/all\n$/);
  });

  it('uses the certificate given, the catalog name given, or plain HTTP', async () => {
    const material = await selfSignedCertificate({ hosts: ['127.0.0.1'] });
    writeFileSync(join(root, 'tls.crt'), material.cert);
    writeFileSync(join(root, 'tls.key'), material.key);
    await whileServing(['--http', '0', '--http-tls-cert', join(root, 'tls.crt'), '--http-tls-key', join(root, 'tls.key'), '--http-catalog-name', 'operatorhubio'], async (allUrl) => {
      expect(allUrl).toMatch(/\/catalogs\/operatorhubio\/api\/v1\/all$/);
      expect((await fetchText(allUrl, { ca: material.cert })).status).toBe(200);
    });
    await whileServing(['--http', '0', '--http-plain', '--http-max-in-flight-per-client', '1'], async (allUrl) => {
      expect(allUrl).toMatch(/^http:\/\//);
      const reply = await fetch(allUrl);
      expect([reply.status, reply.headers.get('content-type')]).toEqual([200, 'application/jsonl']);
      await reply.text();
    });
  });

  it('refuses a bad --http port and half a certificate, saying how to fix it', async () => {
    const port = await runCliCaptured(['catalog', 'serve', dir, '--port', '0', '--http', 'https', '--exit-after-start']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--http must be an integer from 0 to 65535, got "https"');
    const half = await runCliCaptured(['catalog', 'serve', dir, '--port', '0', '--http', '0', '--http-tls-cert', join(root, 'tls.crt'), '--exit-after-start']);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--http-tls-cert and --http-tls-key go together');
    const limit = await runCliCaptured(['catalog', 'serve', dir, '--port', '0', '--http', '0', '--http-max-in-flight', '0', '--exit-after-start']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--http-max-in-flight must be an integer from 1 to 999999, got "0"');
  });

  it('lists the options in --help', async () => {
    const help = await runCliCaptured(['catalog', 'serve', '--help']);
    expect(help.stdout).toContain("--http <port>");
    expect(help.stdout).toContain('/catalogs/NAME/api/v1/all');
    expect(help.stdout).toContain('--http-plain');
    expect(help.stdout).toContain('--http-max-in-flight-per-client <n>');
  });
});

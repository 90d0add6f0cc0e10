import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crds } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { isAlreadyExists, KubeClient } from '@olm/controller-runtime';
import { get as httpsGet } from 'node:https';
import { selfSignedCertificate, startApiServer, type ApiServer, type TlsMaterial } from '@olm/local-apiserver';

export const exampleCatalogDir = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));
export const realCatalogDir = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));

export type Json = CachedObject & { metadata: any; [key: string]: any };

let certificate: TlsMaterial | undefined;

/** A local API server with OLM's CRDs and the global catalog namespace `olm`, over HTTPS (for kubectl). */
export async function startCluster(): Promise<{ server: ApiServer; client: KubeClient; stop(): Promise<void> }> {
  const server = await startApiServer({ port: 0, apiServiceCheckIntervalMs: 500, tls: (certificate ??= selfSignedCertificate()) });
  const client = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 20_000 });
  for (const crd of crds) await client.create(crd as unknown as CachedObject);
  await createNamespace(client, 'olm');
  return {
    server,
    client,
    async stop() {
      client.close();
      await server.stop();
    },
  };
}

/** A raw GET as the admin, trusting the server's certificate. */
export function adminGet(server: ApiServer, path: string): Promise<{ status: number; contentType: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpsGet(`${server.url}${path}`, { ca: server.caCertificate, headers: { Authorization: `Bearer ${server.token}` } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  try {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

export function grpcCatalogSource(namespace: string, name: string, address: string, extra: { labels?: Record<string, string>; spec?: Record<string, unknown> } = {}): Json {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata: { name, namespace, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: { sourceType: 'grpc', address, ...extra.spec },
  };
}

/** Polls `check` until it returns a value (not undefined) or throws its last error after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** kubectl as an independent client: `$KUBECTL`, else `kubectl` on PATH. */
export const kubectlBinary = process.env['KUBECTL'] ?? 'kubectl';

export function kubectlAvailable(): boolean {
  try {
    execFileSync(kubectlBinary, ['version', '--client'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl against a kubeconfig with its own discovery cache; `close()` removes the cache. */
export function kubectlFor(kubeconfigPath: string): { run(args: string[]): Promise<KubectlResult>; close(): void } {
  const workDir = mkdtempSync(join(tmpdir(), 'olm-packageserver-kubectl-'));
  const env = { ...process.env, KUBECONFIG: kubeconfigPath, KUBECACHEDIR: join(workDir, 'cache'), HOME: workDir };
  return {
    run: (args) =>
      new Promise((resolve) => {
        execFile(kubectlBinary, args, { env, cwd: workDir, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
          const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
          resolve({ code, stdout, stderr });
        });
      }),
    close: () => rmSync(workDir, { recursive: true, force: true }),
  };
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate, startApiServer, type TlsMaterial } from '@olm/local-apiserver';
import type { CachedObject } from '@olm/core';
import { vi } from 'vitest';
import { sleep } from '../src/backoff.js';
import { KubeClient } from '../src/kube-client.js';

export type TestServer = Awaited<ReturnType<typeof startApiServer>>;

let certificate: TlsMaterial | undefined;

/**
 * A real local API server; with `durable`, restartable on the same port and data; with `tls`, over
 * HTTPS (kubectl sends its credentials only over TLS).
 */
export async function startServer(options: { durable?: boolean; tls?: boolean } = {}) {
  const dataDir = options.durable ? mkdtempSync(join(tmpdir(), 'olm-runtime-')) : undefined;
  const tls = options.tls ? (certificate ??= selfSignedCertificate()) : undefined;
  let server: TestServer = await startApiServer({ port: 0, ...(dataDir ? { dataDir } : {}), ...(tls ? { tls } : {}) });
  const port = server.port;
  return {
    get server() {
      return server;
    },
    get kubeconfig() {
      return server.kubeconfig;
    },
    client: () => new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 5_000 }),
    /** Stops the server (dropping every watch) and starts it again on the same port and data. */
    async restart(downMs = 0) {
      await server.stop();
      if (downMs > 0) await sleep(downMs);
      // Same admin token, as a restarted kube-apiserver keeps its token file.
      server = await startApiServer({ port, token: server.token, ...(dataDir ? { dataDir } : {}), ...(tls ? { tls } : {}) });
    },
    async stop() {
      await server.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Polls `probe` until it returns something other than undefined, null or false (a throw is polled
 * again). The other packages' tests use @olm/testing's `eventually`; this package is what that harness
 * is built on, so it cannot depend on it (a dependency cycle) and uses vitest's `vi.waitFor` instead.
 */
export function eventually<T>(probe: () => T | Promise<T>, options: { timeoutMs?: number; message?: string } = {}): Promise<NonNullable<T>> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined || value === null || value === false) throw new Error(`${options.message ?? 'condition'} not met in time`);
      return value as NonNullable<T>;
    },
    { timeout: options.timeoutMs ?? 10_000, interval: 25 },
  );
}

export const configMapKind = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

export function configMap(namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>): CachedObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, ...(labels ? { labels } : {}) }, data };
}

export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

export const toyKind = { apiVersion: 'example.olm.io/v1', kind: 'Toy' } as const;

/** A CRD with a status subresource, for status-update tests. */
export async function installToyCrd(client: KubeClient): Promise<void> {
  await client.create({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'toys.example.olm.io' },
    spec: {
      group: 'example.olm.io',
      scope: 'Namespaced',
      names: { plural: 'toys', singular: 'toy', kind: 'Toy', listKind: 'ToyList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { value: { type: 'string' } } },
                status: {
                  type: 'object',
                  properties: {
                    copied: { type: 'string' },
                    observedGeneration: { type: 'integer' },
                    touchedBy: { type: 'array', items: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      ],
    },
  });
  await eventually(() => client.resourceFor(toyKind), { message: 'Toy CRD served' });
}

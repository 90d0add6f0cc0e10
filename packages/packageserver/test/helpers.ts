import { get as httpsGet } from 'node:https';
import { fileURLToPath } from 'node:url';
import type { CachedObject } from '@olm/core';
import type { ApiServer } from '@olm/local-apiserver';
import { createCatalogSourceTypes, loadCatalog } from '@olm/registry';
import { startTestCluster, type TestCluster } from '@olm/testing';

export { createNamespace, eventually, grpcCatalogSource, kubectlAvailable, kubectlBinary, kubectlFor, type KubectlResult } from '@olm/testing';

export const exampleCatalogDir = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));
export const realCatalogDir = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));

/** The registry plugin's catalog source types (grpc, configmap, internal, fbc-directory), as a distribution boots them. */
export const builtInSourceTypes = new Map(createCatalogSourceTypes({ loadDirectory: (directory) => loadCatalog(directory) }).map((type) => [type.sourceType, type]));

export type Json = CachedObject & { metadata: any; [key: string]: any };

/** A local API server with OLM's CRDs and the global catalog namespace `olm`, over HTTPS (for kubectl). */
export function startCluster(): Promise<TestCluster> {
  return startTestCluster({ tls: true, apiServiceCheckIntervalMs: 500, requestTimeoutMs: 20_000, namespaces: ['olm'] });
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

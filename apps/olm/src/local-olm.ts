import { basename, resolve } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { ClusterCatalogConditionTypes, crds, Kinds, SourceDirectoryAnnotation } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { loadCatalog, startRegistryServer, type CatalogLimits, type RegistryServer } from '@olm/registry';
import { inputError } from './cli-errors.js';

type Json = CachedObject & Record<string, any>;
const fieldManager = 'olm';

/**
 * What an OLM installation puts in a cluster before its controllers start, as upstream's install
 * manifests do: the operators.coreos.com CRDs (waited on until Established), the `olm` namespace
 * for OLM and global catalogs, and `operators` with a global OperatorGroup.
 */
export async function installOlmResources(client: KubeClient, options: { readonly namespace: string }): Promise<void> {
  for (const crd of crds) await client.apply(crd as CachedObject & typeof crd, { fieldManager, force: true });
  for (const crd of crds) await waitForEstablished(client, crd.metadata.name);
  for (const name of [options.namespace, 'operators']) {
    await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as Json, { fieldManager, force: true });
  }
  const groups = await client.list({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup' }, { namespace: 'operators' });
  if (groups.items.length === 0) {
    await client.create({
      apiVersion: 'operators.coreos.com/v1',
      kind: 'OperatorGroup',
      metadata: { name: 'global-operators', namespace: 'operators' },
      spec: {},
    } as Json);
  }
}

async function waitForEstablished(client: KubeClient, name: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const crd = await client.find<Json>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });
    const established = (crd?.status?.conditions as Array<{ type: string; status: string }> | undefined)?.some(
      (condition) => condition.type === 'Established' && condition.status === 'True',
    );
    if (established) return;
    if (Date.now() > deadline) throw new Error(`CustomResourceDefinition ${name} did not become Established within 30 s`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

export interface ServedCatalog {
  readonly name: string;
  readonly directory: string;
  readonly address: string;
  readonly server: RegistryServer;
}

/** A CatalogSource name from a directory name: lower case, DNS-1123 friendly. */
export function catalogSourceName(directory: string): string {
  const name = basename(resolve(directory)).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  return name || 'catalog';
}

/**
 * Serves each catalog directory over gRPC on loopback (as `olm catalog serve` does) and points a
 * `grpc` CatalogSource with that address at it, in the global catalog namespace.
 */
export async function serveCatalogs(
  client: KubeClient,
  catalogs: ReadonlyArray<{ readonly name: string; readonly directory: string }>,
  namespace: string,
  limits: Partial<CatalogLimits> = {},
): Promise<ServedCatalog[]> {
  const served: ServedCatalog[] = [];
  try {
    for (const catalog of catalogs) {
      const directory = resolve(catalog.directory);
      const server = await startRegistryServer({ catalog: () => loadCatalog(directory, { limits }), port: 0, host: '127.0.0.1' }).catch((error: unknown) => {
        throw inputError(
          `cannot serve catalog ${directory} (CatalogSource ${namespace}/${catalog.name}): ${(error as Error).message}\n` +
            `fix the catalog (every problem: olm catalog validate ${directory}) or leave it out`,
          error,
        );
      });
      served.push({ name: catalog.name, directory, address: server.address, server });
      await client.apply(
        {
          apiVersion: 'operators.coreos.com/v1alpha1',
          kind: 'CatalogSource',
          metadata: { name: catalog.name, namespace },
          spec: { sourceType: 'grpc', address: server.address, displayName: `${catalog.name} (${directory})`, publisher: 'olm up' },
        } as Json,
        { fieldManager, force: true },
      );
    }
  } catch (error) {
    await Promise.all(served.map((catalog) => catalog.server.stop({ graceMs: 0 })));
    throw error;
  }
  return served;
}

/** Changed on a CatalogSource when its directory changed, so the catalog controller refetches it. */
export const catalogRevisionAnnotation = 'olm.local/catalog-revision';

/** A cheap fingerprint of a directory tree: every file's path, size and modification time. */
async function fingerprint(directory: string): Promise<string> {
  const { readdir, stat } = await import('node:fs/promises');
  const parts: string[] = [];
  const walk = async (path: string): Promise<void> => {
    for (const entry of (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) {
        const info = await stat(child);
        parts.push(`${child}:${info.size}:${info.mtimeMs}`);
      }
    }
  };
  await walk(directory);
  return parts.join('\n');
}

/**
 * Publishes catalog changes: when a served directory changes, its registry server reloads and its
 * CatalogSource gets a new revision annotation. A directory that fails to load keeps serving the
 * previous content, and the problem is reported.
 */
export function watchCatalogs(
  client: KubeClient,
  served: readonly ServedCatalog[],
  namespace: string,
  report: (text: string) => void,
  intervalMs = 1000,
): { stop(): void } {
  const known = new Map<string, string>();
  let revision = 0;
  let busy = false;
  const check = async () => {
    if (busy) return;
    busy = true;
    try {
      for (const catalog of served) {
        const current = await fingerprint(catalog.directory).catch(() => '');
        const previous = known.get(catalog.name);
        known.set(catalog.name, current);
        if (previous === undefined || previous === current) continue;
        try {
          await catalog.server.reload();
        } catch (error) {
          report(`catalog ${catalog.directory} changed but does not load, still serving the previous content: ${(error as Error).message}\n`);
          continue;
        }
        revision += 1;
        await client.patch(
          { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', name: catalog.name, namespace },
          { metadata: { annotations: { [catalogRevisionAnnotation]: `${Date.now()}-${revision}` } } },
        );
        report(`catalog ${catalog.directory} changed: CatalogSource ${namespace}/${catalog.name} reloaded\n`);
      }
    } finally {
      busy = false;
    }
  };
  void check();
  const timer = setInterval(() => void check().catch((error: unknown) => report(`catalog watch failed: ${String(error)}\n`)), intervalMs);
  return { stop: () => clearInterval(timer) };
}

/** The example catalog as OLM v1 sees it: ClusterCatalog `acme-examples`, served from the example directory (the controller is given it under this name). */
export const exampleClusterCatalogName = 'acme-examples';

/** Creates (or keeps) the ClusterCatalog of the example catalog and waits until it is served; returns its `status.urls.base`. */
export async function serveExampleClusterCatalog(client: KubeClient): Promise<string> {
  await client.apply(
    {
      ...Kinds.clusterCatalog,
      metadata: { name: exampleClusterCatalogName, annotations: { [SourceDirectoryAnnotation]: exampleClusterCatalogName } },
      // the ref is required by the API: where the example catalog would be published as an image
      spec: { source: { type: 'Image', image: { ref: 'registry.example.com/acme/acme-examples-catalog:latest' } } },
    } as Json,
    { fieldManager, force: true },
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const catalog = await client.find<Json>({ ...Kinds.clusterCatalog, name: exampleClusterCatalogName });
    const serving = (catalog?.status?.conditions as Array<{ type: string; status: string; lastTransitionTime: string }> | undefined)?.find((condition) => condition.type === ClusterCatalogConditionTypes.serving);
    if (serving?.status === 'True' && typeof catalog?.status?.urls?.base === 'string') return catalog.status.urls.base as string;
    if (Date.now() > deadline) throw new Error(`ClusterCatalog ${exampleClusterCatalogName} was not served within 30 s: ${JSON.stringify(catalog?.status ?? {})}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** The content server's certificate for `olm up` (localhost and the listen host), its CA written where the kubeconfig is, for curl --cacert. */
export async function localCatalogServerCertificate(host: string, caPath: string): Promise<{ cert: string; key: string }> {
  const { selfSignedCertificate } = await import('@olm/serving-certificate');
  const hosts = [...new Set(['localhost', '127.0.0.1', '::1', ...(host === '0.0.0.0' || host === '::' ? [] : [host])])];
  const certificate = await selfSignedCertificate({ hosts });
  await writeFile(caPath, certificate.cert);
  return certificate;
}

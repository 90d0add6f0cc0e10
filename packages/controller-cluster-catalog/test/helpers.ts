import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kinds, type ClusterCatalog } from '@olm/api';
import { gzip, pushImage, tarLayer, type DockerRegistry } from '@olm/bundle-puller/testing';
import { KubeClient } from '@olm/controller-runtime';
import * as testing from '@olm/testing';
import jsYaml from 'js-yaml';
import { createClusterCatalogController, type ClusterCatalogController, type ClusterCatalogControllerOptions } from '../src/index.js';

export { dockerRegistryBinary, startDockerRegistry, type DockerRegistry } from '@olm/bundle-puller/testing';

/** The project's example catalog (three packages). */
export const exampleCatalogDirectory = fileURLToPath(new URL('../../../examples/catalog/', import.meta.url));

/** The (schema, package, name) of every blob in a catalog directory's YAML files, read without the registry. */
export async function blobKeysOf(directory: string): Promise<string[]> {
  const keys: string[] = [];
  for (const file of await filesUnder(directory)) {
    for (const document of jsYaml.loadAll(await readFile(join(directory, file), 'utf8'))) {
      const blob = document as { schema: string; package?: string; name?: string } | null;
      if (blob) keys.push(`${blob.schema}/${blob.package ?? (blob.schema === 'olm.package' ? blob.name : '')}/${blob.name ?? ''}`);
    }
  }
  return keys.sort();
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(directory, join(entry.parentPath, entry.name)));
}

/** A catalog image as `opm` builds one: the catalog's files under `/configs` (one gzip layer, plus a base layer of other files) and the configs label. */
export async function pushCatalogImage(registry: DockerRegistry, repository: string, tag: string, directory: string, options: { configsLabel?: string; prefix?: string } = {}) {
  const prefix = options.prefix ?? 'configs';
  const files = await filesUnder(directory);
  const base = await tarLayer([{ name: 'bin/opm', content: 'not really opm' }, { name: 'etc/passwd', content: 'root:x:0:0::/root:/bin/sh\n' }]);
  const configs = await tarLayer(await Promise.all(files.map(async (file) => ({ name: `${prefix}/${file}`, content: await readFile(join(directory, file), 'utf8') }))));
  const labels = { 'operators.operatorframework.io.index.configs.v1': options.configsLabel ?? `/${prefix}` };
  return pushImage(registry, repository, tag, [{ bytes: base, gzipped: false }, { bytes: gzip(configs), gzipped: true }], {}, labels);
}

export { httpsGet, type HttpsReply } from '@olm/testing';

/** The (schema, package, name) of every line of a `/api/v1/all` answer. */
export function blobKeysOfJsonLines(body: string): string[] {
  return body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { schema: string; package?: string; name?: string })
    .map((blob) => `${blob.schema}/${blob.package ?? (blob.schema === 'olm.package' ? blob.name : '')}/${blob.name ?? ''}`)
    .sort();
}

/** A ClusterCatalog to create. */
export function clusterCatalog(name: string, spec: Partial<ClusterCatalog['spec']> & { source: ClusterCatalog['spec']['source'] }, annotations?: Record<string, string>): testing.TestObject {
  return { ...Kinds.clusterCatalog, metadata: { name, ...(annotations ? { annotations } : {}) }, spec };
}

/** A ClusterCatalog as read back. */
export type StoredClusterCatalog = testing.TestObject & Pick<ClusterCatalog, 'spec' | 'status'> & { metadata: ClusterCatalog['metadata'] & { name: string } };

/** The ClusterCatalog controller on a manager of its own (its content server started first), against the test cluster. */
export async function startClusterCatalogController(cluster: testing.TestCluster, options: ClusterCatalogControllerOptions = {}): Promise<{ controller: ClusterCatalogController; stop(): Promise<void> }> {
  const client = new KubeClient({ kubeconfig: cluster.server.kubeconfig, requestTimeoutMs: 10_000 });
  const controller = createClusterCatalogController({ ...options, client });
  await controller.start();
  const running = await testing.startReconcilers({
    kubeconfig: cluster.server.kubeconfig,
    client,
    controller: () => ({ reconcilers: controller.reconcilers, close: () => controller.stop() }),
  });
  return {
    controller,
    stop: async () => {
      await running.stop();
      client.close();
    },
  };
}

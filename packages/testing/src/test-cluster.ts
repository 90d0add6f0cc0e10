import { crds } from '@olm/api';
import { KubeClient } from '@olm/controller-runtime';
import { renderKubeconfig, selfSignedCertificate, startApiServer, type ApiServer, type ApiServerOptions, type TlsMaterial } from '@olm/local-apiserver';
import { eventually } from './eventually.js';
import { createNamespace } from './olm-objects.js';

export interface TestClusterOptions extends Omit<ApiServerOptions, 'port' | 'tls'> {
  /**
   * HTTPS: `true` with one self-signed certificate per test process (one openssl run), or given
   * material. kubectl and helm send the kubeconfig's token only over TLS. Default plain HTTP.
   */
  readonly tls?: boolean | TlsMaterial;
  /** Install OLM's `operators.coreos.com` CRDs and wait until each kind is served; default true. */
  readonly olmCrds?: boolean;
  /** Namespaces created before the cluster is handed out, e.g. `olm`, the global catalog namespace. */
  readonly namespaces?: readonly string[];
  /** The client's per-request timeout; default 5 s. */
  readonly requestTimeoutMs?: number;
}

export interface TestCluster {
  readonly server: ApiServer;
  /** A client as the admin, closed by `stop()`. */
  readonly client: KubeClient;
  stop(): Promise<void>;
}

let sharedCertificate: TlsMaterial | undefined;

/** One self-signed certificate for the whole test process: making one runs openssl. */
export function testCertificate(): TlsMaterial {
  return (sharedCertificate ??= selfSignedCertificate());
}

/** A real local API server on a free loopback port, with OLM's CRDs served, and an admin client. */
export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const { tls, olmCrds = true, namespaces = [], requestTimeoutMs = 5_000, ...serverOptions } = options;
  const tlsMaterial = tls === true ? testCertificate() : tls === false ? undefined : tls;
  const server = await startApiServer({ ...serverOptions, port: 0, ...(tlsMaterial ? { tls: tlsMaterial } : {}) });
  const client = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs });
  const stop = async () => {
    client.close();
    await server.stop();
  };
  try {
    if (olmCrds) await installOlmCrds(client);
    for (const namespace of namespaces) await createNamespace(client, namespace);
  } catch (error) {
    await stop();
    throw error;
  }
  return { server, client, stop };
}

/** Creates OLM's CRDs and waits until the API server serves every one of their kinds. */
export async function installOlmCrds(client: KubeClient): Promise<void> {
  for (const crd of crds) await client.create({ ...crd, metadata: { ...crd.metadata } });
  for (const crd of crds) {
    const version = crd.spec.versions.find((candidate) => candidate.storage)?.name ?? crd.spec.versions[0]?.name;
    const kind = { apiVersion: `${crd.spec.group}/${version}`, kind: crd.spec.names.kind };
    await eventually(() => client.resourceFor(kind), { message: `the ${crd.metadata.name} CRD served` });
  }
}

/**
 * A kubeconfig for the cluster as the user with `token` (one of the `users` option's), e.g. to run a
 * controller as a user of its own, whose requests `onRequest` then tells from the test's.
 */
export function kubeconfigFor(server: ApiServer, token: string): string {
  return renderKubeconfig({ server: server.url, token, ...(server.caCertificate !== undefined ? { certificateAuthority: server.caCertificate } : {}) });
}

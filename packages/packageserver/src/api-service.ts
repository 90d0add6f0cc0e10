import type { CachedObject, KubeClient } from '@olm/core';
import { isAlreadyExists, isNotFound } from '@olm/controller-runtime';
import { packagesGroup, packagesVersion } from './package-manifest.js';

/** Upstream's names: the APIService `v1.packages.operators.coreos.com` points at Service `packageserver-service`. */
export const packageServerApiServiceName = `${packagesVersion}.${packagesGroup}`;
export const defaultPackageServerServiceName = 'packageserver-service';

export interface ApiServiceRegistration {
  /** The Service the APIService points at. */
  readonly service: { readonly namespace: string; readonly name?: string; readonly port: number };
  /**
   * Also write that Service, as `type: ExternalName` for this host: how an API server without a
   * cluster network (the local one of `olm up`) reaches a packageserver on this machine. Leave it
   * out in a real cluster, where a ClusterIP Service selects the packageserver pods.
   */
  readonly externalHost?: string;
  /** The PEM CA that signed the serving certificate (its own, when self-signed); without it TLS is not verified. */
  readonly caBundle?: string;
  /** The backend speaks plain HTTP (a loopback packageserver without TLS): the Service port says `appProtocol: http`. */
  readonly plainHttp?: boolean;
}

type Json = CachedObject & Record<string, unknown>;

/** The APIService (and, with `externalHost`, the Service) that make the aggregator route `packages.operators.coreos.com/v1` here. */
export function apiServiceObjects(registration: ApiServiceRegistration): Json[] {
  const { namespace, port } = registration.service;
  const name = registration.service.name ?? defaultPackageServerServiceName;
  const objects: Json[] = [];
  if (registration.externalHost !== undefined) {
    objects.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: {
        type: 'ExternalName',
        externalName: registration.externalHost,
        ports: [{ name: 'https', port, ...(registration.plainHttp ? { appProtocol: 'http', name: 'http' } : {}) }],
      },
    });
  }
  objects.push({
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: packageServerApiServiceName },
    spec: {
      group: packagesGroup,
      version: packagesVersion,
      groupPriorityMinimum: 2000,
      versionPriority: 15,
      service: { namespace, name, port },
      ...(registration.caBundle !== undefined ? { caBundle: Buffer.from(registration.caBundle).toString('base64') } : { insecureSkipTLSVerify: true }),
    },
  });
  return objects;
}

const fieldManager = 'olm-packageserver';

/**
 * Writes `apiServiceObjects`: the APIService by server-side apply (field manager
 * `olm-packageserver`), the Service by create or JSON merge patch, which replaces `spec.ports` as
 * a whole: a registration owns the whole Service, and the port of an earlier one (a restarted
 * `olm up`) must not stay listed beside the new one.
 */
export async function registerApiService(client: KubeClient, registration: ApiServiceRegistration): Promise<void> {
  for (const object of apiServiceObjects(registration)) {
    if (object.kind === 'Service') await writeService(client, object);
    else await client.apply(object, { fieldManager, force: true });
  }
}

async function writeService(client: KubeClient, service: Json): Promise<void> {
  const reference = { apiVersion: 'v1', kind: 'Service', namespace: service.metadata?.namespace ?? '', name: service.metadata?.name ?? '' };
  if (!(await client.find(reference))) {
    try {
      await client.create(service, { fieldManager });
      return;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
  await client.patch(reference, { spec: service['spec'] }, { type: 'merge', fieldManager });
}

/**
 * Deletes what `registerApiService` wrote (the APIService, and the Service when it wrote one), so
 * that an API server restarted later does not route the group to a port nobody listens on. Only
 * for a single local process (`olm up`): replicas behind one APIService must leave it in place.
 */
export async function unregisterApiService(client: KubeClient, registration: ApiServiceRegistration): Promise<void> {
  for (const object of apiServiceObjects(registration).reverse()) {
    try {
      await client.delete({ apiVersion: String(object.apiVersion), kind: String(object.kind), name: object.metadata?.name ?? '', ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}) });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/**
 * Resolves once the cluster serves `packages.operators.coreos.com/v1` through this registration:
 * the APIService is `Available` and the group's discovery document answers through the API
 * server, so kubectl's discovery finds it without errors. Rejects after `timeoutMs` saying what
 * was last seen.
 */
export async function waitForApiService(client: KubeClient, options: { readonly timeoutMs?: number; readonly intervalMs?: number } = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let last = 'not checked yet';
  for (;;) {
    try {
      const apiService = await client.get<Json>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: packageServerApiServiceName });
      const conditions = ((apiService['status'] as { conditions?: unknown } | undefined)?.conditions ?? []) as Array<{ type?: string; status?: string; reason?: string; message?: string }>;
      const available = conditions.find((condition) => condition.type === 'Available');
      if (available?.status === 'True') {
        await client.request({ method: 'GET', path: `/apis/${packagesGroup}/${packagesVersion}` });
        return;
      }
      last = available ? `Available=${available.status} (${available.reason ?? ''}: ${available.message ?? ''})` : 'no Available condition yet';
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`APIService ${packageServerApiServiceName} did not become available within ${timeoutMs} ms: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

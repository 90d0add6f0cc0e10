import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
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

/** Applies `apiServiceObjects` (server-side apply, field manager `olm-packageserver`). */
export async function registerApiService(client: KubeClient, registration: ApiServiceRegistration): Promise<void> {
  for (const object of apiServiceObjects(registration)) await client.apply(object, { fieldManager: 'olm-packageserver', force: true });
}

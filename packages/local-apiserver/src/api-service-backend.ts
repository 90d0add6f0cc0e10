import { isIP } from 'node:net';
import type { Cluster } from './cluster.js';
import { isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';

/**
 * Where an `apiregistration.k8s.io/v1` APIService with `spec.service` is served, found as
 * kube-aggregator finds it without endpoint routing:
 * - an `ExternalName` Service: `<externalName>:<spec.service.port>`;
 * - any other Service: `<spec.clusterIP>:<port>`, the port being one the Service lists.
 * On this server Services get no network, so a backend on this machine is reached through an
 * ExternalName Service (`externalName: 127.0.0.1` or `localhost`) or an explicit
 * `clusterIP: 127.0.0.1`. The connection is HTTPS, as the aggregator's always is, unless the
 * Service port says `appProtocol: http` (a local backend without TLS). TLS is verified against
 * `spec.caBundle` for the name `<service>.<namespace>.svc`; `spec.insecureSkipTLSVerify` turns
 * verification off; with neither, the system roots are used.
 */
export interface ApiServiceBackend {
  readonly protocol: 'http' | 'https';
  readonly host: string;
  readonly port: number;
  /** `https://host:port`, for messages. */
  readonly origin: string;
  readonly tls: { readonly ca?: string; readonly rejectUnauthorized: boolean; readonly servername?: string };
}

export type BackendResolution =
  | { readonly ok: true; readonly backend: ApiServiceBackend }
  | { readonly ok: false; readonly reason: 'ServiceNotFound' | 'ServicePortError' | 'FailedDiscoveryCheck'; readonly message: string };

export interface ApiServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
}

/** `spec.service` of an APIService (port defaulting to 443), or undefined for a Local one. */
export function serviceReference(apiService: KubeObject): ApiServiceReference | undefined {
  const spec = isJsonObject(apiService['spec']) ? apiService['spec'] : {};
  const service = spec['service'];
  if (!isJsonObject(service)) return undefined;
  return {
    namespace: typeof service['namespace'] === 'string' ? service['namespace'] : '',
    name: typeof service['name'] === 'string' ? service['name'] : '',
    port: typeof service['port'] === 'number' ? service['port'] : 443,
  };
}

function decodeCaBundle(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return Buffer.from(value, 'base64').toString('utf8');
}

export function resolveBackend(cluster: Cluster, apiService: KubeObject): BackendResolution {
  const reference = serviceReference(apiService);
  if (!reference) return { ok: false, reason: 'FailedDiscoveryCheck', message: 'the APIService has no spec.service' };
  const serviceType = cluster.registry.get('', 'services');
  const service = serviceType ? cluster.tryGet(serviceType, reference.namespace, reference.name) : undefined;
  if (!service) return { ok: false, reason: 'ServiceNotFound', message: `service/${reference.name} in "${reference.namespace}" is not present` };
  const spec: JsonObject = isJsonObject(service['spec']) ? service['spec'] : {};
  const ports = Array.isArray(spec['ports']) ? spec['ports'].filter(isJsonObject) : [];
  const servicePort = ports.find((port) => port['port'] === reference.port);
  let host: string;
  if (spec['type'] === 'ExternalName') {
    host = typeof spec['externalName'] === 'string' ? spec['externalName'] : '';
    if (host === '') return { ok: false, reason: 'FailedDiscoveryCheck', message: `service/${reference.name} in "${reference.namespace}" has no externalName` };
  } else {
    if (!servicePort) return { ok: false, reason: 'ServicePortError', message: `service/${reference.name} in "${reference.namespace}" is not listening on port ${reference.port}` };
    host = typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
    if (host === '' || host === 'None') {
      return { ok: false, reason: 'FailedDiscoveryCheck', message: `cannot route to service/${reference.name} in "${reference.namespace}" with ClusterIP ${JSON.stringify(host || 'None')}` };
    }
  }
  const protocol = servicePort?.['appProtocol'] === 'http' ? 'http' : 'https';
  const apiSpec = isJsonObject(apiService['spec']) ? apiService['spec'] : {};
  const insecure = apiSpec['insecureSkipTLSVerify'] === true;
  const ca = decodeCaBundle(apiSpec['caBundle']);
  const hostForUrl = isIP(host) === 6 ? `[${host}]` : host;
  return {
    ok: true,
    backend: {
      protocol,
      host,
      port: reference.port,
      origin: `${protocol}://${hostForUrl}:${reference.port}`,
      tls: {
        rejectUnauthorized: !insecure,
        ...(ca !== undefined && !insecure ? { ca } : {}),
        servername: `${reference.name}.${reference.namespace}.svc`,
      },
    },
  };
}

import { isIP } from 'node:net';
import type { Cluster } from './cluster.js';
import { isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';

/**
 * Where an `apiregistration.k8s.io/v1` APIService with `spec.service` is served, found as
 * kube-aggregator finds it without endpoint routing:
 * - an `ExternalName` Service: `<externalName>:<spec.service.port>`;
 * - any other Service: `<spec.clusterIP>:<port>`, the port being one the Service lists.
 * On this server Services get no network: only loopback addresses are really reachable (a Pod whose
 * image a `podImageServers` function serves listens on one). So a backend is dialed at a loopback
 * `externalName` or `clusterIP` (`127.0.0.1`, `localhost`), or, as kube-proxy would route a cluster
 * IP, at a ready served Pod the Service selects (`<podIP>:<targetPort>`). A simulated cluster IP with
 * no such Pod is `MissingEndpoints`, and another IP address is never dialed (it would reach a real
 * network, or hang): `FailedDiscoveryCheck`, network unreachable. An `externalName` that is a DNS
 * name is dialed as given. The connection is HTTPS, as the aggregator's always is, unless the
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
  | { readonly ok: false; readonly reason: 'ServiceNotFound' | 'ServicePortError' | 'MissingEndpoints' | 'FailedDiscoveryCheck'; readonly message: string };

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
  let port = reference.port;
  const protocol = servicePort?.['appProtocol'] === 'http' ? 'http' : 'https';
  if (spec['type'] === 'ExternalName') {
    host = typeof spec['externalName'] === 'string' ? spec['externalName'] : '';
    if (host === '') return { ok: false, reason: 'FailedDiscoveryCheck', message: `service/${reference.name} in "${reference.namespace}" has no externalName` };
  } else {
    if (!servicePort) return { ok: false, reason: 'ServicePortError', message: `service/${reference.name} in "${reference.namespace}" is not listening on port ${reference.port}` };
    host = typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
    if (!isLoopback(host)) {
      const endpoint = servedEndpoint(cluster, reference.namespace, spec, servicePort);
      if (!endpoint) {
        const portName = typeof servicePort['name'] === 'string' ? servicePort['name'] : '';
        return { ok: false, reason: 'MissingEndpoints', message: `endpoints for service/${reference.name} in "${reference.namespace}" have no addresses with port name "${portName}"` };
      }
      ({ host, port } = endpoint);
    }
  }
  if (isIP(host) !== 0 && !isLoopback(host)) {
    const url = `${protocol}://${urlHost(host)}:${port}`;
    return { ok: false, reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}/apis/${apiServiceGroupVersion(apiService)}: dial tcp ${urlHost(host)}:${port}: connect: network is unreachable` };
  }
  const apiSpec = isJsonObject(apiService['spec']) ? apiService['spec'] : {};
  const insecure = apiSpec['insecureSkipTLSVerify'] === true;
  const ca = decodeCaBundle(apiSpec['caBundle']);
  return {
    ok: true,
    backend: {
      protocol,
      host,
      port,
      origin: `${protocol}://${urlHost(host)}:${port}`,
      tls: {
        rejectUnauthorized: !insecure,
        ...(ca !== undefined && !insecure ? { ca } : {}),
        servername: `${reference.name}.${reference.namespace}.svc`,
      },
    },
  };
}

function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

function apiServiceGroupVersion(apiService: KubeObject): string {
  const spec = isJsonObject(apiService['spec']) ? apiService['spec'] : {};
  return `${String(spec['group'] ?? '')}/${String(spec['version'] ?? '')}`;
}

/** Loopback addresses and names: the only ones this machine's embedded world really serves. */
function isLoopback(host: string): boolean {
  const address = host.toLowerCase();
  if (address === 'localhost' || address.endsWith('.localhost')) return true;
  if (isIP(address) === 4) return address.startsWith('127.');
  return address === '::1' || address.startsWith('::ffff:127.');
}

/**
 * Where kube-proxy would send a connection to the Service's cluster IP, among the addresses that are
 * really served: a ready Pod it selects with a loopback IP (one a `podImageServers` function serves),
 * at the Service port's `targetPort` (a number, or a container port's name). Pods by name, for a
 * stable choice.
 */
function servedEndpoint(cluster: Cluster, namespace: string, spec: JsonObject, servicePort: JsonObject): { host: string; port: number } | undefined {
  const selector = spec['selector'];
  if (!isJsonObject(selector) || Object.keys(selector).length === 0) return undefined;
  const podType = cluster.registry.get('', 'pods');
  if (!podType) return undefined;
  const pods = cluster.list(podType, namespace).items;
  const selected = pods
    .filter((pod) => pod.metadata.deletionTimestamp === undefined && Object.entries(selector).every(([key, value]) => pod.metadata.labels?.[key] === value))
    .sort((left, right) => ((left.metadata.name ?? '') < (right.metadata.name ?? '') ? -1 : 1));
  for (const pod of selected) {
    const status = isJsonObject(pod['status']) ? pod['status'] : {};
    const podIP = status['podIP'];
    const ready = Array.isArray(status['conditions']) && status['conditions'].some((condition) => isJsonObject(condition) && condition['type'] === 'Ready' && condition['status'] === 'True');
    if (typeof podIP !== 'string' || !isLoopback(podIP) || !ready) continue;
    const port = targetPort(pod, servicePort);
    if (port !== undefined) return { host: podIP, port };
  }
  return undefined;
}

function targetPort(pod: KubeObject, servicePort: JsonObject): number | undefined {
  const target = servicePort['targetPort'] ?? servicePort['port'];
  if (typeof target === 'number') return target;
  if (typeof target !== 'string') return undefined;
  const spec = isJsonObject(pod['spec']) ? pod['spec'] : {};
  const containers = Array.isArray(spec['containers']) ? spec['containers'].filter(isJsonObject) : [];
  for (const container of containers) {
    const ports = Array.isArray(container['ports']) ? container['ports'].filter(isJsonObject) : [];
    const named = ports.find((port) => port['name'] === target);
    if (named && typeof named['containerPort'] === 'number') return named['containerPort'];
  }
  return undefined;
}

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { builtinResourceTypes, seededNamespaces } from './builtin-types.js';
import { withAggregation } from './aggregation.js';
import type { StaticTokenUser } from './auth/authenticator.js';
import { registerAuthTypes, setUpServerAuth } from './auth/server-auth.js';
import { Cluster } from './cluster.js';
import { ApiServiceAvailability } from './controllers/api-service-availability.js';
import { ClusterRoleAggregation } from './controllers/cluster-role-aggregation.js';
import { CrdController } from './controllers/crd-controller.js';
import { DeploymentSimulator } from './controllers/deployment-simulator.js';
import { EventExpiry } from './controllers/event-expiry.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { NamespaceController } from './controllers/namespace-controller.js';
import type { PodImageServer } from './controllers/pod-image-servers.js';
import { PodSimulator } from './controllers/pod-simulator.js';
import { ReplicaSetSimulator } from './controllers/replica-set-simulator.js';
import { ServiceAccountController } from './controllers/service-account-controller.js';
import { defaultConnectionLimits, guardConnections, serverTimeouts, type ConnectionLimits } from './connection-guard.js';
import { versionInfo } from './discovery.js';
import { makePrivateDirectory, tightenDataDirModes } from './data-dir-modes.js';
import { DurableLog } from './durable-log.js';
import { frontProxyMaterial, publishAuthenticationConfig } from './front-proxy.js';
import { createRequestHandler } from './http-handler.js';
import { observeRequests, type ServedRequest } from './request-observer.js';
import { renderKubeconfig } from './kubeconfig.js';
import { ResourceRegistry } from './resource-type.js';
import { defaultObjectSizeLimits, type ObjectSizeLimits } from './object-size-limits.js';
import { Store } from './store.js';
import { selfSignedCertificate, type TlsMaterial } from './tls.js';

/** Starts the embedded Kubernetes-compatible API server. */
export interface ApiServerOptions {
  /** TCP port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  readonly host?: string;
  /** Makes every write durable in `<dataDir>/store.jsonl`; without it the server is in memory. */
  readonly dataDir?: string;
  /** Where to write the kubeconfig; default `<dataDir>/kubeconfig`, or a temp directory removed on stop. */
  readonly kubeconfigPath?: string;
  /** Serve HTTPS with a self-signed certificate (`true`) or the given PEMs. */
  readonly tls?: boolean | TlsMaterial;
  /**
   * The admin's bearer token (user `kubernetes-admin` in `system:masters`), which the kubeconfig
   * carries; default a random one, kept in `<dataDir>/auth/admin-token` with a data directory.
   */
  readonly token?: string;
  /**
   * Requests without a bearer token are user `system:anonymous` in group `system:unauthenticated`,
   * whom RBAC judges (default true, as kube-apiserver's `--anonymous-auth`): the bootstrap policy
   * lets them read `/healthz`, `/livez`, `/readyz` and `/version`, nothing else (403). False makes
   * every request without a token 401.
   */
  readonly anonymousAuth?: boolean;
  /** More users, each with a static bearer token (kube-apiserver's `--token-auth-file`). */
  readonly users?: readonly StaticTokenUser[];
  /** How long a Deployment takes to become available, and a Pod to run (default 50 ms). */
  readonly deploymentRolloutDelayMs?: number;
  /** Deployments also get a ReplicaSet and Pods (which the Pod simulator then runs); default false. */
  readonly simulateWorkloadPods?: boolean;
  /** Every namespace gets a `default` ServiceAccount, as kube-controller-manager makes (default true). */
  readonly defaultServiceAccounts?: boolean;
  /** How many recent events are kept for watch resumption (default 10,000); older versions get 410. */
  readonly watchWindow?: number;
  /** Fewer events are kept when they hold more than this many bytes (objects and previous states; default 256 MiB). */
  readonly watchWindowBytes?: number;
  /** Events last recorded longer ago than this are deleted (default one hour, as kube-apiserver). */
  readonly eventTtlMs?: number;
  /** Interval of watch bookmarks when clients allow them (default 60 s, as kube-apiserver). */
  readonly bookmarkIntervalMs?: number;
  /** How often service-backed APIServices are checked for their `Available` condition (default 30 s). */
  readonly apiServiceCheckIntervalMs?: number;
  /** Bounds on connections, so one client cannot lock others out (see connection-guard.ts for the defaults). */
  readonly connectionLimits?: Partial<ConnectionLimits>;
  /** The Kubernetes version `/version` reports, a release tag such as `v1.28.3` (default v1.32.4). */
  readonly kubernetesVersion?: string;
  /**
   * What Pods of some images run, by image: each such Pod gets a loopback IP of its own (`127.x.y.z`) and is
   * Ready once its server started there; the server stops when the Pod is deleted. See the README.
   */
  readonly podImageServers?: Readonly<Record<string, PodImageServer>>;
  /**
   * Called once per request answered (as kube-apiserver's audit log records them): verb, resource,
   * namespace, name, status code and user. For tests that count the load a client puts on the server.
   */
  readonly onRequest?: (request: ServedRequest) => void;
  /** Largest request body, also once YAML aliases are expanded (default 3 MiB, kube-apiserver's); larger gets 413. */
  readonly maxRequestBodyBytes?: number;
  /** Bounds on one stored object (defaults kube's 1 MiB ConfigMap/Secret data and etcd's 1.5 MiB request). */
  readonly objectSizeLimits?: Partial<ObjectSizeLimits>;
  /** Where warnings go, such as a torn last record dropped from the data directory's log (default process.emitWarning). */
  readonly warn?: (message: string) => void;
}

export interface ApiServer {
  /** `http://127.0.0.1:<port>` (or https). */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly kubeconfigPath: string;
  /** The kubeconfig document (YAML), with the admin token. */
  readonly kubeconfig: string;
  /** The admin's bearer token (`Authorization: Bearer <token>`): every request needs a credential. */
  readonly token: string;
  /** The serving certificate (PEM) when serving HTTPS, for clients to trust. */
  readonly caCertificate?: string;
  /** The API semantics, for in-process callers and tests. Returned objects are the stored ones: read-only. */
  readonly cluster: Cluster;
  /** The current resourceVersion (store revision). */
  revision(): number;
  /** Makes the Deployment fail (Progressing=False, ProgressDeadlineExceeded) until `recoverDeployment`. */
  failDeployment(namespace: string, name: string): void;
  recoverDeployment(namespace: string, name: string): void;
  /** Expires watch history up to `revision` (resuming from older versions then gets 410 Expired). */
  compact(revision: number): void;
  /** Ends every open watch as a server-side timeout would (clients then resume or relist). */
  closeWatches(): void;
  stop(): Promise<void>;
}

const defaultWatchWindow = 10_000;
const defaultMaxRequestBodyBytes = 3 * 1024 * 1024;

export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  // A mistyped version fails before anything starts.
  const version = versionInfo(options.kubernetesVersion);
  const host = options.host ?? '127.0.0.1';
  const registry = new ResourceRegistry();
  for (const type of builtinResourceTypes()) registry.add(type);
  registerAuthTypes(registry);
  const sizeLimits: ObjectSizeLimits = { ...defaultObjectSizeLimits, ...options.objectSizeLimits };
  const store = new Store(options.watchWindow ?? defaultWatchWindow, sizeLimits.maxStoredObjectBytes, options.watchWindowBytes);
  const cluster = new Cluster(registry, store, sizeLimits.maxDataBytes);
  const warn = options.warn ?? ((message: string) => process.emitWarning(message, { code: 'OLM_APISERVER_DATA_DIR' }));
  if (options.dataDir !== undefined) {
    makePrivateDirectory(options.dataDir);
    tightenDataDirModes(options.dataDir, warn);
  }
  const log = options.dataDir !== undefined ? await DurableLog.open(options.dataDir, store, { warn }) : undefined;

  const namespaces = registry.get('', 'namespaces');
  for (const name of seededNamespaces) {
    if (namespaces && !cluster.tryGet(namespaces, undefined, name)) cluster.create(namespaces, 'v1', undefined, { metadata: { name } }, { fieldManager: 'kube-apiserver' });
  }

  const tlsMaterial = options.tls === true ? selfSignedCertificate(options.dataDir !== undefined ? join(options.dataDir, 'tls') : undefined) : options.tls === false || options.tls === undefined ? undefined : options.tls;
  const maxBodyBytes = options.maxRequestBodyBytes ?? defaultMaxRequestBodyBytes;
  const auth = setUpServerAuth(cluster, { dataDir: options.dataDir, token: options.token, users: options.users ?? [], maxBodyBytes, caCertificate: tlsMaterial?.cert, anonymousAuth: options.anonymousAuth ?? true });
  const frontProxy = frontProxyMaterial(options.dataDir !== undefined ? join(options.dataDir, 'tls') : undefined);
  publishAuthenticationConfig(cluster, frontProxy);

  const crdController = new CrdController(cluster);
  const namespaceController = new NamespaceController(cluster);
  const garbageCollector = new GarbageCollector(cluster);
  const deploymentSimulator = new DeploymentSimulator(cluster, options.deploymentRolloutDelayMs ?? 50);
  const podSimulator = new PodSimulator(cluster, options.deploymentRolloutDelayMs ?? 50, options.podImageServers);
  const eventExpiry = new EventExpiry(cluster, options.eventTtlMs ?? 3_600_000);
  const apiServiceAvailability = new ApiServiceAvailability(cluster, { frontProxy, ...(options.apiServiceCheckIntervalMs !== undefined ? { intervalMs: options.apiServiceCheckIntervalMs } : {}) });
  const controllers = [
    crdController,
    namespaceController,
    garbageCollector,
    deploymentSimulator,
    podSimulator,
    eventExpiry,
    apiServiceAvailability,
    new ClusterRoleAggregation(cluster),
    ...(options.simulateWorkloadPods ? [new ReplicaSetSimulator(cluster)] : []),
    ...(options.defaultServiceAccounts === false ? [] : [new ServiceAccountController(cluster)]),
    auth.tokenController,
  ];
  for (const controller of controllers) controller.start();
  await store.durable();

  const watches = new Set<() => void>();
  let address = '';
  const handler = createRequestHandler({
    cluster,
    admissionFor: (request) => auth.accessControl.writeAdmission(request),
    maxBodyBytes,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    trackWatch: (close) => {
      watches.add(close);
      return () => watches.delete(close);
    },
    serverAddress: () => address,
    version,
  });

  // Access control first; then APIServices with a Service are proxied before the local handler sees the request.
  const aggregated = withAggregation(handler, {
    cluster,
    frontProxy,
    userOf: (request) => auth.accessControl.userOf(request),
    trackWatch: (close) => {
      watches.add(close);
      return () => watches.delete(close);
    },
  });
  const limits: ConnectionLimits = { ...defaultConnectionLimits, ...options.connectionLimits };
  const timeouts = serverTimeouts(limits);
  const admitted = auth.accessControl.wrap(aggregated);
  const front = options.onRequest ? observeRequests(admitted, options.onRequest, (request) => auth.accessControl.userOf(request)) : admitted;
  const server: Server = tlsMaterial ? createHttpsServer({ cert: tlsMaterial.cert, key: tlsMaterial.key, ...timeouts }) : createHttpServer(timeouts);
  server.keepAliveTimeout = 65_000;
  const sockets = guardConnections(server, limits, front);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (socket.writable) socket.end(`HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue (the kernel caps it at somaxconn): a burst of connections, such as a
    // client opening a thousand watches, then waits to be accepted instead of retrying its SYNs.
    server.listen({ port: options.port ?? 0, host, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `${tlsMaterial ? 'https' : 'http'}://${urlHost}:${port}`;
  address = `${urlHost}:${port}`;
  auth.listening(host, port, tlsMaterial !== undefined);

  // Without a data directory or a path, the kubeconfig goes to a temp directory removed by stop().
  const temporaryDirectory = options.kubeconfigPath === undefined && options.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'olm-apiserver-')) : undefined;
  const kubeconfigPath = options.kubeconfigPath ?? join(options.dataDir ?? temporaryDirectory ?? tmpdir(), 'kubeconfig');
  const kubeconfig = renderKubeconfig({
    server: url,
    ...(tlsMaterial ? { certificateAuthority: tlsMaterial.cert } : {}),
    token: auth.adminToken,
  });
  mkdirSync(dirname(kubeconfigPath), { recursive: true });
  writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    host,
    kubeconfigPath,
    kubeconfig,
    token: auth.adminToken,
    ...(tlsMaterial ? { caCertificate: tlsMaterial.cert } : {}),
    cluster,
    revision: () => store.revision,
    failDeployment: (namespace, name) => deploymentSimulator.setFailed(namespace, name, true),
    recoverDeployment: (namespace, name) => deploymentSimulator.setFailed(namespace, name, false),
    compact: (revision) => store.compact(revision),
    closeWatches: () => {
      for (const close of [...watches]) close();
    },
    stop() {
      stopping ??= (async () => {
        for (const controller of controllers) controller.stop();
        auth.stop();
        for (const close of [...watches]) close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await closed;
        await log?.close();
        if (temporaryDirectory !== undefined) rmSync(temporaryDirectory, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { resolveBackend, serviceReference, type ApiServiceBackend } from '../api-service-backend.js';
import type { Cluster } from '../cluster.js';
import { withAuthProxyHeaders, type FrontProxyMaterial } from '../front-proxy.js';
import { deepEqual, isJsonObject, type JsonObject, type KubeObject } from '../kube-object.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';
import { mergeConditions, type Condition } from './crd-controller.js';

/**
 * The `Available` condition of APIServices, as kube-aggregator's availability controller sets it:
 * Local ones (no `spec.service`) are always available; a service-backed one is checked (the
 * Service exists, lists the port unless it is an ExternalName, and the backend answers
 * `GET /apis/<group>/<version>` with a 2xx within the timeout) when it or its Service changes and
 * every `intervalMs`. Reasons and messages are kube-aggregator's; as there, the check presents the
 * front-proxy client certificate as `system:kube-aggregator` in `system:masters`. A Service's endpoints are the served
 * Pods it selects (see `resolveBackend`), so Pod changes in its namespace check it again.
 */
export interface ApiServiceAvailabilityOptions {
  /** Re-checks every service-backed APIService this often. Default 30 s. */
  readonly intervalMs?: number;
  /** Timeout of one discovery check. Default 5 s. */
  readonly timeoutMs?: number;
  /** The client certificate the checks present (kube-aggregator's proxy client certificate). */
  readonly frontProxy?: FrontProxyMaterial;
}

const aggregatorUser = { username: 'system:kube-aggregator', groups: ['system:masters'] };

const apiServiceResource = 'apiregistration.k8s.io/apiservices';
const serviceResource = '/services';
const podResource = '/pods';

export class ApiServiceAvailability {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;
  private interval: NodeJS.Timeout | undefined;
  private readonly inFlight = new Map<string, AbortController>();
  private stopped = false;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly frontProxy: FrontProxyMaterial | undefined;

  constructor(
    private readonly cluster: Cluster,
    options: ApiServiceAvailabilityOptions = {},
  ) {
    this.frontProxy = options.frontProxy;
    this.queue = new WorkQueue((name) => this.reconcile(name));
    this.intervalMs = options.intervalMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
  }

  start(): void {
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
    this.enqueueAll();
    this.interval = setInterval(() => this.enqueueAll(), this.intervalMs);
    this.interval.unref();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    clearInterval(this.interval);
    this.queue.stop();
    for (const controller of this.inFlight.values()) controller.abort();
    this.inFlight.clear();
  }

  private enqueueAll(): void {
    for (const apiService of this.cluster.store.list(apiServiceResource)) this.queue.add(apiService.metadata.name ?? '');
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource === apiServiceResource) {
      // Its own status writes change neither spec nor generation: no need to check again.
      if (event.type === 'DELETED' || (event.previous !== undefined && deepEqual(event.previous['spec'], event.object['spec']))) return;
      this.queue.add(event.object.metadata.name ?? '');
      return;
    }
    // A Service's Pods are its endpoints: one becoming ready (or going) may change where its APIServices are served.
    if (event.resource === serviceResource || event.resource === podResource) {
      const { namespace, name } = event.object.metadata;
      for (const apiService of this.cluster.store.list(apiServiceResource)) {
        const reference = serviceReference(apiService);
        if (reference && reference.namespace === namespace && (event.resource === podResource || reference.name === name)) this.queue.add(apiService.metadata.name ?? '');
      }
    }
  }

  private apiServiceType() {
    const type = this.cluster.registry.get('apiregistration.k8s.io', 'apiservices');
    if (!type) throw new Error('the APIService type is not registered');
    return type;
  }

  private reconcile(name: string): void {
    const apiService = this.cluster.tryGet(this.apiServiceType(), undefined, name);
    if (!apiService || apiService.metadata.deletionTimestamp !== undefined) return;
    if (!serviceReference(apiService)) {
      this.write(name, { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
      return;
    }
    const resolution = resolveBackend(this.cluster, apiService);
    if (!resolution.ok) {
      this.write(name, { type: 'Available', status: 'False', reason: resolution.reason, message: resolution.message });
      return;
    }
    if (this.inFlight.has(name)) return;
    const spec = isJsonObject(apiService['spec']) ? apiService['spec'] : {};
    const path = `/apis/${String(spec['group'] ?? '')}/${String(spec['version'] ?? '')}`;
    const controller = new AbortController();
    this.inFlight.set(name, controller);
    void this.check(resolution.backend, path, controller.signal).then((failure) => {
      if (this.inFlight.get(name) !== controller) return;
      this.inFlight.delete(name);
      if (this.stopped) return;
      try {
        this.write(
          name,
          failure === undefined
            ? { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' }
            : { type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${resolution.backend.origin}${path}: ${failure}` },
        );
      } catch {
        // Changed or deleted meanwhile: check again shortly.
        this.queue.addAfter(name, 50);
      }
    });
  }

  /** GET the backend's discovery document; resolves to why it failed, or undefined. */
  private check(backend: ApiServiceBackend, path: string, signal: AbortSignal): Promise<string | undefined> {
    return new Promise((resolve) => {
      const send = backend.protocol === 'https' ? httpsRequest : httpRequest;
      const request = send({
        host: backend.host,
        port: backend.port,
        path,
        method: 'GET',
        headers: withAuthProxyHeaders({ Accept: 'application/json' }, aggregatorUser),
        signal,
        timeout: this.timeoutMs,
        ...(backend.protocol === 'https' ? { ...backend.tls, ...(this.frontProxy ? { cert: this.frontProxy.clientCertificate, key: this.frontProxy.clientKey } : {}) } : {}),
      });
      request.on('timeout', () => request.destroy(new Error(`Client.Timeout exceeded while awaiting headers (${this.timeoutMs} ms)`)));
      request.on('error', (error) => resolve(error.message));
      request.on('response', (response) => {
        response.resume();
        const code = response.statusCode ?? 0;
        resolve(code >= 200 && code < 300 ? undefined : `bad status from ${backend.origin}${path}: ${code}`);
      });
      request.end();
    });
  }

  private write(name: string, condition: Condition): void {
    const type = this.apiServiceType();
    const current = this.cluster.tryGet(type, undefined, name);
    if (!current) return;
    const status: JsonObject = isJsonObject(current['status']) ? { ...current['status'] } : {};
    const conditions = mergeConditions(status['conditions'], [condition]);
    if (deepEqual(conditions, status['conditions'])) return;
    const next: KubeObject = { ...current, status: { ...status, conditions } };
    this.cluster.update(type, 'v1', undefined, name, next, { subresource: 'status', fieldManager: 'kube-apiserver' });
  }
}

import { describeError, type ConnectionState, type Reconciler } from '@olm/core';
import { isNotFound, isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import { registryPoll, registryServiceName, specInvalidReason } from './catalog-source-spec.js';
import type { CatalogControllerContext } from './controller-context.js';
import { registryPort } from './registry-pod.js';
import { podAddressOfService } from './registry-service-address.js';
import { ensureRegistryServer, removeRegistryServer } from './registry-server.js';
import { asString, Kinds, type AnyObject } from './kinds.js';
import { formatTime } from '@olm/go-format';

const builtInSourceTypes = new Set(['grpc', 'configmap', 'internal']);

/** The status fields this reconciler owns. */
interface CatalogSourceStatusView {
  reason?: string;
  message?: string;
  connectionState?: { address?: string; lastObservedState: string; lastConnect?: string };
  registryService?: { protocol: string; serviceName: string; serviceNamespace: string; port: string; createdAt: string };
  configMapReference?: { name: string; namespace: string; uid?: string; resourceVersion?: string; lastUpdateTime: string };
  latestImageRegistryPoll?: string;
  [field: string]: unknown;
}

/**
 * CatalogSource: validate the spec, reach the catalog through its source type (a gRPC `address`, a
 * registry Service for an image, a ConfigMap), probe its health and record it in the status. An
 * unreachable catalog is a status, never an error of the reconciler.
 */
export function createCatalogSourceReconciler(context: CatalogControllerContext): Reconciler {
  return {
    name: 'catalogsource',
    for: Kinds.catalogSource,
    // A registry connection that changes state is probed and its status written at once (upstream's syncSourceState).
    eventSources: [context.catalogEvents.connectionChanged.eventSource((key) => [key])],
    async reconcile({ namespace = '', name }, { cache }) {
      const key = { namespace, name };
      const source = cache.get(Kinds.catalogSource, name, namespace) as AnyObject | undefined;
      if (!source) {
        await context.connections.remove(key);
        context.reconciledCatalogSources.delete(`${namespace}/${name}`);
        context.metrics?.catalogSourceReady.remove({ namespace, name });
        context.metrics?.catalogSourceSnapshots.remove({ namespace, name });
        context.metrics?.catalogSourceCount.set(cache.list(Kinds.catalogSource).length);
        return;
      }
      context.metrics?.catalogSourceCount.set(cache.list(Kinds.catalogSource).length);
      // Upstream shows every catalog's snapshot counter, at 0 before its first snapshot.
      context.metrics?.catalogSourceSnapshots.inc({ namespace, name }, 0);
      const spec = (source.spec ?? {}) as Record<string, unknown>;
      const previous = (source.status ?? {}) as CatalogSourceStatusView;
      const now = context.now();
      const next: CatalogSourceStatusView = { ...previous };
      delete next.reason;
      delete next.message;

      // 1. validate
      const extraTypes = [...context.sourceTypes().keys()].filter((type) => !builtInSourceTypes.has(type));
      const invalid = specInvalidReason(spec, extraTypes);
      if (invalid) {
        await context.connections.remove(key);
        await writeStatus(context, source, { ...next, reason: 'SpecInvalidError', message: invalid });
        context.metrics?.catalogSourceReady.set({ namespace, name }, 0);
        return;
      }

      // 2. where the registry is: the address, a registry Service for an image, or a ConfigMap
      const sourceType = asString(spec.sourceType);
      let connectSpec: Record<string, unknown> = spec;
      if (sourceType === 'grpc' && !asString(spec.address) && asString(spec.image)) {
        const serviceName = registryServiceName(name);
        next.registryService = {
          protocol: 'grpc',
          serviceName,
          serviceNamespace: namespace,
          port: '50051',
          createdAt: previous.registryService?.createdAt ?? formatTime(now),
        };
        connectSpec = { ...spec, address: `${serviceName}.${namespace}.svc:50051` };
      }
      if (sourceType === 'configmap' || sourceType === 'internal') {
        const configMapName = asString(spec.configMap);
        let configMap: AnyObject | undefined;
        try {
          configMap = await context.client().get({ ...Kinds.configMap, namespace, name: configMapName });
        } catch (error) {
          const message = `failed to get catalog config map ${configMapName}: ${isNotFound(error) ? `configmaps ${JSON.stringify(configMapName)} not found` : describeError(error)}`;
          await writeStatus(context, source, { ...next, reason: 'ConfigMapError', message, connectionState: connectionState(previous, 'TRANSIENT_FAILURE', undefined, now) });
          context.metrics?.catalogSourceReady.set({ namespace, name }, 0);
          return { requeueAfter: context.unhealthyRetryMs };
        }
        const resourceVersion = configMap.metadata?.resourceVersion;
        if (previous.configMapReference?.resourceVersion !== resourceVersion) context.connections.invalidate(key);
        next.configMapReference =
          previous.configMapReference?.resourceVersion === resourceVersion && previous.configMapReference?.uid === configMap.metadata?.uid
            ? previous.configMapReference
            : { name: configMapName, namespace, uid: configMap.metadata?.uid, resourceVersion, lastUpdateTime: formatTime(now) };
      }

      // 3. poll interval (grpc with image only)
      const poll = registryPoll(spec);
      if (poll.invalidIntervalMessage) {
        next.reason = 'InvalidIntervalError';
        next.message = poll.invalidIntervalMessage;
      }
      let pollDue = false;
      if (poll.intervalMs !== undefined) {
        const last = previous.latestImageRegistryPoll ? Date.parse(previous.latestImageRegistryPoll) : undefined;
        if (last === undefined || now.getTime() - last >= poll.intervalMs) {
          pollDue = true;
          context.connections.invalidate(key);
          next.latestImageRegistryPoll = formatTime(now);
        }
      }

      // 4. an image catalog's registry Pod and Service (recreating the Pod when a poll is due)
      if (sourceType === 'grpc' && asString(spec.image)) {
        try {
          const changes = await ensureRegistryServer(context.client(), source, {
            replacePod: pollDue && previous.latestImageRegistryPoll !== undefined,
            pod: context.registryPod,
          });
          if (changes.length > 0) context.logger.info('registry server updated', { catalogSource: `${namespace}/${name}`, changes });
        } catch (error) {
          next.reason = 'RegistryServerError';
          next.message = `cannot create the registry Pod and Service for image ${asString(spec.image)}: ${describeError(error)}`;
        }
      } else if (previous.registryService) {
        await removeRegistryServer(context.client(), key).catch((error: unknown) =>
          context.logger.warn('cannot remove the registry Pod and Service', { catalogSource: `${namespace}/${name}`, error: describeError(error) }),
        );
        delete next.registryService;
      }

      // 5. connect and check health
      let state: ConnectionState;
      let address = asString(connectSpec.address) || undefined;
      try {
        // the registry Service's address is what status shows; where it is dialed depends on the routing
        const serviceAddress = next.registryService ? address : undefined;
        let dial = connectSpec;
        let hasEndpoint = true;
        if (serviceAddress && context.registryServiceRouting === 'pod-ip') {
          const podAddress = await podAddressOfService(context.client(), namespace, next.registryService!.serviceName, registryPort);
          if (podAddress) dial = { ...connectSpec, address: podAddress };
          else hasEndpoint = false;
        }
        if (!hasEndpoint) {
          // no ready registry Pod (yet): like a Service without endpoints
          state = 'TRANSIENT_FAILURE';
        } else {
          const connection = await context.connections.connect(key, sourceType, dial);
          address = serviceAddress ?? connection.address ?? address;
          state = await context.connections.probe(key);
        }
      } catch (error) {
        next.reason = 'RegistryServerError';
        next.message = describeError(error);
        state = 'TRANSIENT_FAILURE';
      }
      const connectedAt = context.connections.connectedAt(key);
      next.connectionState = connectionState(previous, state, address, now, connectedAt === undefined ? undefined : new Date(connectedAt));
      await writeStatus(context, source, next);
      context.metrics?.catalogSourceReady.set({ namespace, name }, state === 'READY' ? 1 : 0);

      const healthy = state === 'READY';
      const recheck = healthy ? context.healthCheckIntervalMs : context.unhealthyRetryMs;
      return { requeueAfter: poll.intervalMs !== undefined ? Math.min(recheck, poll.intervalMs) : recheck };
    },
  };
}

/**
 * `status.connectionState`: `lastConnect` is when the state last changed, as upstream records each
 * change it sees. A connection whose state is watched gives the time it became READY, so a registry
 * that restarted between two probes (READY both times, over a new connection) moves it too.
 */
function connectionState(previous: CatalogSourceStatusView, state: ConnectionState, address: string | undefined, now: Date, connectedAt?: Date) {
  const before = previous.connectionState;
  const unchanged = before?.lastObservedState === state && before.address === address && before.lastConnect !== undefined;
  const readySince = state === 'READY' && connectedAt ? formatTime(connectedAt) : '';
  // RFC 3339 UTC timestamps of one format order as strings; lastConnect never moves back.
  const since = unchanged ? before.lastConnect! : formatTime(now);
  return { ...(address ? { address } : {}), lastObservedState: state, lastConnect: readySince > since ? readySince : since };
}

async function writeStatus(context: CatalogControllerContext, source: AnyObject, status: CatalogSourceStatusView): Promise<void> {
  // Resolution waits for catalogs this process has not looked at yet; from now on it knows this one's state.
  context.reconciledCatalogSources.add(`${source.metadata?.namespace ?? ''}/${source.metadata?.name ?? ''}`);
  if (isSemanticallyEqual(source.status, status)) return;
  await updateStatus<AnyObject>(
    context.client(),
    { ...Kinds.catalogSource, namespace: source.metadata?.namespace ?? '', name: source.metadata?.name ?? '' },
    (latest) => {
      latest.status = { ...(latest.status ?? {}), ...status };
      for (const field of ['reason', 'message'] as const) if (status[field] === undefined) delete latest.status[field];
    },
    { fieldManager: context.fieldManager },
  );
}

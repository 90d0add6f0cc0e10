import {
  CatalogSourceReasons,
  GrpcConnectionStates,
  RegistryServicePort,
  RegistryServiceProtocol,
  SourceTypes,
  type CatalogSourceSpec,
  type CatalogSourceStatus,
} from '@olm/api';
import { describeError, type CachedObject, type ConnectionState } from '@olm/core';
import { isNotFound, isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import { formatTime } from '@olm/go-format';
import { registryPoll, registryServiceName, specInvalidReason } from './catalog-source-spec.js';
import type { CatalogControllerContext } from './controller-context.js';
import { asString, Kinds, type CatalogSourceObject } from './kinds.js';
import { registryPort } from './registry-pod.js';
import { ensureRegistryServer, removeRegistryServer } from './registry-server.js';
import { podAddressOfService } from './registry-service-address.js';

const builtInSourceTypes = new Set<string>(Object.values(SourceTypes));

/** One CatalogSource's pass: what was read, and the status being built (`next`). */
export interface CatalogSourcePass {
  readonly key: { readonly namespace: string; readonly name: string };
  readonly source: CatalogSourceObject;
  readonly spec: Partial<CatalogSourceSpec>;
  readonly sourceType: string;
  readonly previous: CatalogSourceStatus;
  readonly next: CatalogSourceStatus;
  readonly now: Date;
}

export function startPass(key: CatalogSourcePass['key'], source: CatalogSourceObject, now: Date): CatalogSourcePass {
  const spec = source.spec ?? {};
  const previous = source.status ?? {};
  const next: CatalogSourceStatus = { ...previous };
  delete next.reason;
  delete next.message;
  return { key, source, spec, sourceType: asString(spec.sourceType), previous, next, now };
}

/** `SpecInvalidError` (written, connection closed) when the spec is invalid; true when it was. */
export async function rejectInvalidSpec(context: CatalogControllerContext, pass: CatalogSourcePass): Promise<boolean> {
  const extraTypes = [...context.sourceTypes().keys()].filter((type) => !builtInSourceTypes.has(type));
  const invalid = specInvalidReason(pass.spec, extraTypes);
  if (!invalid) return false;
  await context.connections.remove(pass.key);
  await writeStatus(context, pass.source, { ...pass.next, reason: CatalogSourceReasons.SpecInvalidError, message: invalid });
  context.metrics?.catalogSourceReady.set(pass.key, 0);
  return true;
}

/** The spec a source type connects with: the whole spec, fields of plugin source types included. */
type ConnectSpec = Readonly<Record<string, unknown>>;

/**
 * Where the registry is: the spec (an address, a source type's own), a registry Service for an image
 * (`status.registryService`), or a ConfigMap (`status.configMapReference`; a missing one is `ConfigMapError`,
 * written, and undefined is returned).
 */
export async function locateRegistry(context: CatalogControllerContext, pass: CatalogSourcePass): Promise<ConnectSpec | undefined> {
  const { key, spec, sourceType, previous, next, now } = pass;
  if (sourceType === SourceTypes.Grpc && !asString(spec.address) && asString(spec.image)) {
    const serviceName = registryServiceName(key.name);
    next.registryService = {
      protocol: RegistryServiceProtocol,
      serviceName,
      serviceNamespace: key.namespace,
      port: RegistryServicePort,
      createdAt: previous.registryService?.createdAt ?? formatTime(now),
    };
    return { ...spec, address: `${serviceName}.${key.namespace}.svc:${RegistryServicePort}` };
  }
  if (sourceType !== SourceTypes.Configmap && sourceType !== SourceTypes.Internal) return { ...spec };
  const configMapName = asString(spec.configMap);
  let configMap: CachedObject;
  try {
    configMap = await context.client().get({ ...Kinds.configMap, namespace: key.namespace, name: configMapName });
  } catch (error) {
    const message = `failed to get catalog config map ${configMapName}: ${isNotFound(error) ? `configmaps ${JSON.stringify(configMapName)} not found` : describeError(error)}`;
    await writeStatus(context, pass.source, { ...next, reason: CatalogSourceReasons.ConfigMapError, message, connectionState: connectionState(previous, GrpcConnectionStates.TransientFailure, undefined, now) });
    context.metrics?.catalogSourceReady.set(key, 0);
    return undefined;
  }
  const resourceVersion = configMap.metadata?.resourceVersion;
  if (previous.configMapReference?.resourceVersion !== resourceVersion) context.connections.invalidate(key);
  next.configMapReference =
    previous.configMapReference?.resourceVersion === resourceVersion && previous.configMapReference?.uid === configMap.metadata?.uid
      ? previous.configMapReference
      : { name: configMapName, namespace: key.namespace, uid: configMap.metadata?.uid, resourceVersion, lastUpdateTime: formatTime(now) };
  return { ...spec };
}

/** `registryPoll.interval` (grpc with image only): `InvalidIntervalError`, and whether a poll is due (the content is then taken again). */
export function pollRegistry(context: CatalogControllerContext, pass: CatalogSourcePass): { readonly intervalMs?: number; readonly due: boolean } {
  const { next, previous, now } = pass;
  const poll = registryPoll(pass.spec);
  if (poll.invalidIntervalMessage) {
    next.reason = CatalogSourceReasons.IntervalInvalidError;
    next.message = poll.invalidIntervalMessage;
  }
  if (poll.intervalMs === undefined) return { due: false };
  const last = previous.latestImageRegistryPoll ? Date.parse(previous.latestImageRegistryPoll) : undefined;
  if (last !== undefined && now.getTime() - last < poll.intervalMs) return { intervalMs: poll.intervalMs, due: false };
  context.connections.invalidate(pass.key);
  next.latestImageRegistryPoll = formatTime(now);
  return { intervalMs: poll.intervalMs, due: true };
}

/** An image catalog's registry Pod and Service (the Pod recreated when a poll is due); removed when the catalog no longer has an image. */
export async function ensureRegistry(context: CatalogControllerContext, pass: CatalogSourcePass, pollDue: boolean): Promise<void> {
  const { key, spec, sourceType, previous, next } = pass;
  const catalogSource = `${key.namespace}/${key.name}`;
  if (sourceType === SourceTypes.Grpc && asString(spec.image)) {
    const source = await context.catalogImages.sourceFor(pass, pollDue);
    if (!source) {
      // refused by its signature policy: nothing of the image is served, nor read from what was served before
      await removeRegistryServer(context.client(), key);
      await context.connections.remove(key);
      return;
    }
    try {
      const changes = await ensureRegistryServer(context.client(), source, { replacePod: pollDue && previous.latestImageRegistryPoll !== undefined, pod: context.registryPod });
      if (changes.length > 0) context.logger.info('registry server updated', { catalogSource, changes });
    } catch (error) {
      next.reason = CatalogSourceReasons.RegistryServerError;
      next.message = `cannot create the registry Pod and Service for image ${asString(spec.image)}: ${describeError(error)}`;
    }
  } else if (previous.registryService) {
    await removeRegistryServer(context.client(), key).catch((error: unknown) => context.logger.warn('cannot remove the registry Pod and Service', { catalogSource, error: describeError(error) }));
    delete next.registryService;
  }
}

/** Connects through the source type and probes health; the state and address go to `status.connectionState`. An unreachable registry is a state, not an error. */
export async function connectAndProbe(context: CatalogControllerContext, pass: CatalogSourcePass, connectSpec: ConnectSpec): Promise<ConnectionState> {
  const { key, next } = pass;
  let state: ConnectionState;
  let address = asString(connectSpec.address) || undefined;
  try {
    // the registry Service's address is what status shows; where it is dialed depends on the routing
    const serviceAddress = next.registryService ? address : undefined;
    let dial = connectSpec;
    let hasEndpoint = true;
    if (serviceAddress && context.registryServiceRouting === 'pod-ip') {
      const podAddress = await podAddressOfService(context.client(), key.namespace, next.registryService?.serviceName ?? '', registryPort);
      if (podAddress) dial = { ...connectSpec, address: podAddress };
      else hasEndpoint = false;
    }
    if (!hasEndpoint) {
      // no ready registry Pod (yet): like a Service without endpoints
      state = GrpcConnectionStates.TransientFailure;
    } else {
      const connection = await context.connections.connect(key, pass.sourceType, dial);
      address = serviceAddress ?? connection.address ?? address;
      state = await context.connections.probe(key);
    }
  } catch (error) {
    next.reason = CatalogSourceReasons.RegistryServerError;
    next.message = describeError(error);
    state = GrpcConnectionStates.TransientFailure;
  }
  const connectedAt = context.connections.connectedAt(key);
  next.connectionState = connectionState(pass.previous, state, address, pass.now, connectedAt === undefined ? undefined : new Date(connectedAt));
  describeLoadFailure(context, pass);
  return state;
}

/** A catalog that answers health checks but cannot be read (e.g. it streams without end): why, and when it is read again. */
function describeLoadFailure(context: CatalogControllerContext, pass: CatalogSourcePass): void {
  const failure = context.connections.loadFailure(pass.key);
  if (!failure || pass.next.reason !== undefined) return;
  const fallback = context.connections.hasContent(pass.key) ? '; the content read before is used meanwhile' : '';
  pass.next.reason = CatalogSourceReasons.RegistryServerError;
  pass.next.message = `cannot read the catalog (${failure.attempts} failed attempt(s), the next at ${formatTime(new Date(failure.retryAt))}): ${describeError(failure.error)}${fallback}`;
}

/**
 * `status.connectionState`: `lastConnect` is when the state last changed, as upstream records each
 * change it sees. A connection whose state is watched gives the time it became READY, so a registry
 * that restarted between two probes (READY both times, over a new connection) moves it too.
 */
function connectionState(previous: CatalogSourceStatus, state: ConnectionState, address: string | undefined, now: Date, connectedAt?: Date) {
  const before = previous.connectionState;
  const unchanged = before?.lastObservedState === state && before.address === address && before.lastConnect !== undefined;
  const readySince = state === GrpcConnectionStates.Ready && connectedAt ? formatTime(connectedAt) : '';
  // RFC 3339 UTC timestamps of one format order as strings; lastConnect never moves back.
  const since = unchanged ? before.lastConnect! : formatTime(now);
  return { ...(address ? { address } : {}), lastObservedState: state, lastConnect: readySince > since ? readySince : since };
}

export async function writeStatus(context: CatalogControllerContext, source: CatalogSourceObject, status: CatalogSourceStatus): Promise<void> {
  // Resolution waits for catalogs this process has not looked at yet; from now on it knows this one's state.
  context.reconciledCatalogSources.add(`${source.metadata?.namespace ?? ''}/${source.metadata?.name ?? ''}`);
  if (isSemanticallyEqual(source.status, status)) return;
  await updateStatus<CatalogSourceObject>(
    context.client(),
    { ...Kinds.catalogSource, namespace: source.metadata?.namespace ?? '', name: source.metadata?.name ?? '' },
    (latest) => {
      latest.status = { ...(latest.status ?? {}), ...status };
      for (const field of ['reason', 'message'] as const) if (status[field] === undefined) delete latest.status[field];
    },
    { fieldManager: context.fieldManager },
  );
}

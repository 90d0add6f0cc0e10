import { CatalogSourceReasons, GrpcConnectionStates, type CatalogSourceSpec, type CatalogSourceStatus } from '@olm/api';
import { describeError, type CatalogSourceType, type CatalogSourceWorkloadContext, type CatalogSourceWorkloadResult, type ConnectionState } from '@olm/core';
import { isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import { formatTime } from '@olm/go-format';
import { specInvalidReason } from './catalog-source-spec.js';
import type { CatalogSourceDeps } from './catalog-source-deps.js';
import { asString, Kinds, type CatalogSourceObject } from '../kinds.js';

/** One CatalogSource's pass: what was read, its source type, and the status being built (`next`). */
export interface CatalogSourcePass {
  readonly key: { readonly namespace: string; readonly name: string };
  readonly source: CatalogSourceObject;
  readonly spec: Partial<CatalogSourceSpec>;
  readonly sourceType: string;
  /** The booted type of `spec.sourceType`; undefined for an unknown one (the spec is then invalid). */
  readonly type: CatalogSourceType | undefined;
  readonly previous: CatalogSourceStatus;
  readonly next: CatalogSourceStatus;
  readonly now: Date;
}

export function startPass(context: CatalogSourceDeps, key: CatalogSourcePass['key'], source: CatalogSourceObject, now: Date): CatalogSourcePass {
  const spec = source.spec ?? {};
  const previous = source.status ?? {};
  const next: CatalogSourceStatus = { ...previous };
  delete next.reason;
  delete next.message;
  const sourceType = asString(spec.sourceType);
  return { key, source, spec, sourceType, type: context.sourceTypes().get(sourceType), previous, next, now };
}

/** `SpecInvalidError` (written, connection closed) when the spec is invalid; true when it was. */
export async function rejectInvalidSpec(context: CatalogSourceDeps, pass: CatalogSourcePass): Promise<boolean> {
  const invalid = specInvalidReason({ ...pass.spec }, context.sourceTypes());
  if (!invalid) return false;
  await context.connections.remove(pass.key);
  await writeStatus(context, pass.source, { ...pass.next, reason: CatalogSourceReasons.SpecInvalidError, message: invalid });
  context.metrics?.catalogSourceReady.set(pass.key, 0);
  return true;
}

/**
 * What serves the catalog in the cluster, through its source type's workload (a registry Pod and Service
 * for an image, a ConfigMap): its status fields and problem go to `next`, and what other types' workloads
 * made for this CatalogSource before it changed type is released. A workload that cannot serve at all
 * (a missing ConfigMap) has its reason written with `TRANSIENT_FAILURE`, and undefined is returned.
 */
export async function serveWorkload(context: CatalogSourceDeps, pass: CatalogSourcePass): Promise<CatalogSourceWorkloadResult | undefined> {
  const { key, next, previous, now } = pass;
  const workloadContext: CatalogSourceWorkloadContext = {
    source: pass.source,
    client: context.client(),
    now,
    logger: context.logger,
    ...(context.imageSignatureVerifier() ? { imageSignatureVerifier: context.imageSignatureVerifier() } : {}),
    contentChanged: () => context.connections.invalidate(key),
    stopServing: () => context.connections.remove(key),
  };
  const served = (await pass.type?.workload?.ensure(workloadContext)) ?? {};
  if (served.failure) {
    const connection = connectionState(previous, GrpcConnectionStates.TransientFailure, undefined, now);
    await writeStatus(context, pass.source, { ...next, ...served.failure, connectionState: connection });
    context.metrics?.catalogSourceReady.set(key, 0);
    return undefined;
  }
  setStatusFields(next, served.status ?? {});
  if (served.problem) Object.assign(next, served.problem);
  for (const other of context.sourceTypes().values()) {
    if (other === pass.type || !other.workload?.release) continue;
    for (const field of await other.workload.release(workloadContext)) setStatusFields(next, { [field]: undefined });
  }
  return served;
}

/** A workload's status fields on `status`: one given as undefined is removed. */
function setStatusFields(status: CatalogSourceStatus, fields: Readonly<Record<string, unknown>>): void {
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) Reflect.deleteProperty(status, field);
    else Reflect.set(status, field, value);
  }
}

/** Connects through the source type and probes health; the state and address go to `status.connectionState`. An unreachable registry is a state, not an error. */
export async function connectAndProbe(context: CatalogSourceDeps, pass: CatalogSourcePass, served: CatalogSourceWorkloadResult): Promise<ConnectionState> {
  const { key, next } = pass;
  const connectSpec = served.connectSpec ?? { ...pass.spec };
  let state: ConnectionState;
  let address = asString(connectSpec.address) || undefined;
  try {
    // what status shows (a registry Service's address) may differ from where the workload says to dial
    let dial = connectSpec;
    let hasEndpoint = true;
    if (served.dial) {
      const at = await served.dial();
      if (at) dial = { ...connectSpec, address: at };
      else hasEndpoint = false;
    }
    if (!hasEndpoint) {
      // nothing serves (yet): like a Service without endpoints
      state = GrpcConnectionStates.TransientFailure;
    } else {
      const connection = await context.connections.connect(key, pass.sourceType, dial);
      address = served.address ?? connection.address ?? address;
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
function describeLoadFailure(context: CatalogSourceDeps, pass: CatalogSourcePass): void {
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

export async function writeStatus(context: CatalogSourceDeps, source: CatalogSourceObject, status: CatalogSourceStatus): Promise<void> {
  // Resolution waits for catalogs this process has not looked at yet; from now on it knows this one's state.
  context.reconciledCatalogSources.markReconciled({ namespace: source.metadata?.namespace ?? '', name: source.metadata?.name ?? '' });
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

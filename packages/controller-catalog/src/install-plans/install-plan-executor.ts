import { bundleObjectKinds, ErrInvalidInstallPlanMessage, StepStatuses, type StepStatus } from '@olm/api';
import { type CachedObject, describeError, type KubeClient, type ObjectReader, OlmError } from '@olm/core';
import { apiStatusCode, apiStatusMessage, isAlreadyExists, isSemanticallyEqual, setOwnerLabels, setOwnerReference, type OwnerObject } from '@olm/controller-runtime';
import type { Step } from '../bundles/bundle-steps.js';
import type { InstallPlanDeps } from './install-plan-deps.js';
import { applyCrd, checkCrdUpgrades, crdState, type CheckedCrd } from './crd-steps.js';
import { installerClient } from './install-plan-identity.js';
import { Kinds, nameOf, type AnyObject, type CsvObject, type InstallPlanObject } from '../kinds.js';
import { stepError, type StepAction } from './step-errors.js';
import { appliedWithWarningsMessage, appliedWithWarningsReason, stepFieldPath } from './step-warnings.js';

const managedLabel = 'olm.managed';

/** Kinds an InstallPlan may create besides CSVs, CRDs and Subscriptions: the bundle object kinds, and `BundleSecret`. */
export const supportedStepKinds: ReadonlySet<string> = new Set(['BundleSecret', ...bundleObjectKinds.keys()]);

export interface ExecutionResult {
  readonly steps: Step[];
  /** The first error; later steps were not tried. */
  readonly error?: { readonly message: string; readonly forbidden: boolean };
  readonly waitingForApi: boolean;
  /** Stopped because the manager is shutting down; the steps so far are recorded. */
  readonly aborted: boolean;
}

class StepFailure extends Error {
  constructor(
    message: string,
    readonly stepStatus?: StepStatus,
  ) {
    super(message);
  }
}

/**
 * Applies the plan's steps in order, idempotently: steps already Present or Created are skipped,
 * creating something that exists counts as done, and a CRD that exists goes through the upgrade
 * safety check before it is replaced. Stops at the first error. As upstream, a step whose requests
 * drew API warnings (HTTP 299, e.g. an unknown field or a deprecated API) gets an
 * `AppliedWithWarnings` Warning Event on the plan and counts once in `installplan_warnings_total`.
 * CSVs are looked up in `cache` when it holds them (see `alongsideAnnotations`).
 *
 * Scoped installs (upstream's attenuated clients): when the plan records `status.attenuatedServiceAccountRef`,
 * every step but CRDs is applied as that ServiceAccount; CRDs, their upgrade checks and OLM's own lookups
 * (owner CSVs) use OLM's client, as upstream installs CRDs with its own rights.
 */
export async function executePlan(
  context: InstallPlanDeps,
  plan: InstallPlanObject,
  input: readonly Step[],
  signal: AbortSignal,
  cache?: ObjectReader,
): Promise<ExecutionResult> {
  const warnings: string[] = [];
  const client = context.client().withWarningHandler((warning) => {
    if (warning.code === 299) warnings.push(warning.text);
  });
  const namespace = plan.metadata?.namespace ?? '';
  const steps = input.map((step) => ({ ...step }));
  const owners = new Map<string, OwnerObject>();
  let checkedCrds: Map<number, CheckedCrd>;
  let installer: KubeClient;
  try {
    installer = await installerClient(client, plan).catch((error: unknown) => {
      throw new OlmError('OLM_CATALOG_INSTALLER_UNAVAILABLE', apiStatusMessage(error), { details: { statusCode: apiStatusCode(error) } });
    });
    checkedCrds = await checkCrdUpgrades(client, steps);
  } catch (error) {
    return { steps, error: { message: describeError(error), forbidden: apiStatusCode(error) === 403 }, waitingForApi: false, aborted: false };
  }
  for (let index = 0; index < steps.length; index += 1) {
    if (signal.aborted) return { steps, waitingForApi: true, aborted: true };
    const step = steps[index]!;
    if (step.status === StepStatuses.Present || step.status === StepStatuses.Created) continue;
    warnings.length = 0;
    try {
      if (step.status === StepStatuses.WaitingForAPI) {
        const state = await crdState(client, step.resource.name);
        if (state === 'established') steps[index] = { ...step, status: StepStatuses.Created };
        // Deleted while we waited: NotPresent, which is applied again below.
        if (state !== 'missing') continue;
        steps[index] = { ...step, status: StepStatuses.NotPresent };
      }
      let status: StepStatus;
      try {
        status = await applyStep(context, { olm: client, installer }, plan, step, owners, cache, checkedCrds.get(index));
      } catch (error) {
        if (error instanceof StepFailure && error.stepStatus) steps[index] = { ...step, status: error.stepStatus };
        return { steps, error: { message: describeError(error), forbidden: apiStatusCode(error) === 403 }, waitingForApi: false, aborted: false };
      }
      steps[index] = { ...step, status };
    } finally {
      reportWarnings(context, plan, index, step, warnings);
    }
    await context.onStepApplied?.({ namespace, installPlan: nameOf(plan), index, kind: step.resource.kind, name: step.resource.name, status: steps[index]!.status, signal });
  }
  // CRDs created in this pass are usually established by now: look once more before waiting a requeue.
  for (let index = 0; index < steps.length; index += 1) {
    const step = steps[index]!;
    if (step.status === StepStatuses.WaitingForAPI && (await crdState(client, step.resource.name)) === 'established') steps[index] = { ...step, status: StepStatuses.Created };
  }
  return { steps, waitingForApi: steps.some((step) => step.status === StepStatuses.WaitingForAPI), aborted: false };
}

function reportWarnings(context: InstallPlanDeps, plan: CachedObject, index: number, step: Step, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  context.metrics?.installPlanWarnings.inc();
  void context.events().warning(plan, appliedWithWarningsReason, appliedWithWarningsMessage(step, warnings), { fieldPath: stepFieldPath(index) });
}

/** OLM's client, and the one the plan's objects are created with (the same unless the install is scoped). */
interface StepClients {
  readonly olm: KubeClient;
  readonly installer: KubeClient;
}

async function applyStep(
  context: InstallPlanDeps,
  clients: StepClients,
  plan: InstallPlanObject,
  step: Step,
  owners: Map<string, OwnerObject>,
  cache: ObjectReader | undefined,
  checkedCrd: CheckedCrd | undefined,
): Promise<StepStatus> {
  const namespace = plan.metadata?.namespace ?? '';
  let manifest: AnyObject;
  try {
    manifest = JSON.parse(step.resource.manifest ?? '') as AnyObject;
  } catch {
    throw new StepFailure(ErrInvalidInstallPlanMessage, StepStatuses.UnsupportedResource);
  }
  const metadata = { ...(manifest.metadata ?? {}) };
  delete metadata.resourceVersion;
  delete metadata.uid;
  delete metadata.creationTimestamp;
  const kind = step.resource.kind;

  // Everything a plan creates carries OLM's managed label, as upstream marks it.
  const labels = { ...metadata.labels, [managedLabel]: 'true' };
  const { olm, installer: client } = clients;
  switch (kind) {
    case 'ClusterServiceVersion':
      return createOrPresent(client, { ...manifest, metadata: { ...metadata, namespace, labels } }, kind);
    case 'Subscription':
      return createOrPresent(
        client,
        { ...manifest, metadata: { ...metadata, namespace, labels, annotations: { ...metadata.annotations, 'olm.generated-by': nameOf(plan) } } },
        kind,
      );
    case 'CustomResourceDefinition':
      return applyCrd(context, olm, cache, plan, step.resolving, { ...manifest, metadata: { ...metadata, labels } }, checkedCrd);
    default:
      break;
  }

  if (!supportedStepKinds.has(kind)) throw new StepFailure(ErrInvalidInstallPlanMessage, StepStatuses.UnsupportedResource);
  const object: AnyObject = { ...manifest, kind: kind === 'BundleSecret' ? 'Secret' : kind, metadata: { ...metadata, labels } };
  return applyObject(context, clients, namespace, step, object, owners);
}

/** Any other supported object: owned by its CSV (a reference, or OLM's owner labels when cluster-scoped), created or brought up to date. */
async function applyObject(
  context: InstallPlanDeps,
  { olm, installer: client }: StepClients,
  namespace: string,
  step: Step,
  object: AnyObject,
  owners: Map<string, OwnerObject>,
): Promise<StepStatus> {
  const failed = (action: StepAction) => (error: unknown): never => {
    throw stepError(action, step.resource.kind, nameOf(object), error);
  };
  const resource = await client.resourceFor({ apiVersion: object.apiVersion ?? '', kind: object.kind ?? '' });
  const owner = await csvOwner(olm, namespace, step.resolving, owners);
  if (resource.namespaced) {
    object.metadata!.namespace = namespace;
    setOwnerReference(object, owner, { controller: false, blockOwnerDeletion: false });
  } else {
    delete object.metadata!.namespace;
    setOwnerLabels(object, owner);
  }
  try {
    await client.create(object, { fieldManager: context.fieldManager });
    return StepStatuses.Created;
  } catch (error) {
    if (!isAlreadyExists(error)) failed('create')(error);
  }
  // Present already: bring it to what the bundle says, keeping what others added to its metadata.
  const existing = await client
    .get<AnyObject>({ apiVersion: object.apiVersion!, kind: object.kind!, name: nameOf(object), ...(resource.namespaced ? { namespace } : {}) })
    .catch(failed('get'));
  const merged = mergedWithLive(object, existing);
  // The bundle's top-level fields replace the live ones whole, so a field the server defaulted inside them reads
  // as a difference: such an object is written once per execution of its step, never in a loop.
  if (!isSemanticallyEqual(merged, existing)) await client.replace(merged, { fieldManager: context.fieldManager }).catch(failed('update'));
  return StepStatuses.Present;
}

/** The bundle's object over the live one, keeping the labels, annotations and owner references others added. */
function mergedWithLive(object: AnyObject, existing: AnyObject): AnyObject {
  const merged: AnyObject = {
    ...existing,
    ...object,
    metadata: {
      ...existing.metadata,
      labels: { ...existing.metadata?.labels, ...object.metadata?.labels },
      annotations: { ...existing.metadata?.annotations, ...object.metadata?.annotations },
      ownerReferences: [
        ...(existing.metadata?.ownerReferences ?? []).filter((reference) => !object.metadata?.ownerReferences?.some((added) => added.uid === reference.uid)),
        ...(object.metadata?.ownerReferences ?? []),
      ],
    },
  };
  if (object.kind === 'ServiceAccount') {
    for (const field of ['secrets', 'imagePullSecrets']) if (object[field] === undefined && existing[field] !== undefined) merged[field] = existing[field];
  }
  return merged;
}

async function createOrPresent(client: KubeClient, object: AnyObject, kind: string): Promise<StepStatus> {
  try {
    await client.create(object);
    return StepStatuses.Created;
  } catch (error) {
    if (isAlreadyExists(error)) return StepStatuses.Present;
    throw stepError('create', kind, nameOf(object), error);
  }
}

async function csvOwner(client: KubeClient, namespace: string, name: string, owners: Map<string, OwnerObject>): Promise<OwnerObject> {
  const known = owners.get(name);
  if (known) return known;
  const csv = await client.find<CsvObject>({ ...Kinds.clusterServiceVersion, namespace, name });
  if (!csv?.metadata?.uid) throw new Error(`clusterserviceversion ${namespace}/${name} not found: cannot own the objects it needs`);
  const owner: OwnerObject = { apiVersion: Kinds.clusterServiceVersion.apiVersion, kind: Kinds.clusterServiceVersion.kind, metadata: { name, namespace, uid: csv.metadata.uid } };
  owners.set(name, owner);
  return owner;
}

import { Annotations, CSVMessages, CSVPhases, CSVReasons, Labels, formatProvidedApis, formatTargetNamespaces, parseProvidedApis, csvProvidedApis } from '@olm/api';
import { isNotFound, isSemanticallyEqual, updateObject } from '@olm/controller-runtime';
import { describeError, type ReconcileContext } from '@olm/core';
import { type GroupApiView, reconcileApiIntersection } from './api-intersection.js';
import type { CsvMemory } from '../csv-memory.js';
import { fail, type PhaseWriter, setPhase } from '../status/csv-phase.js';
import { done, proceed, type Step } from '../csv-step.js';
import { ownedDeploymentSelector } from '../install/deployment/deployment-install.js';
import { toInstallModeSet, unsupportedTargetsReason } from './install-modes.js';
import { fnv64aHex, Kinds } from '../kinds.js';
import { type Csv, csvReference, type Og, ogReference } from '../shared.js';

// Upstream transitionCSVState before its phase switch: owned CRD names, API labels, group membership,
// install modes and the provided-API intersection between groups.

export async function preChecks(shared: PhaseWriter, memory: Pick<CsvMemory, 'clusterChanges'>, csv: Csv, context: ReconcileContext): Promise<Step> {
  if (csv.status?.reason === CSVReasons.ComponentFailedNoRetry) {
    // Left alone until an RBAC object or ServiceAccount changes (upstream syncObject).
    if (memory.clusterChanges.delete(`${csv.metadata.namespace}/${csv.metadata.name}`)) {
      await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.DetectedClusterChange, CSVMessages.clusterResourcesChanged);
    }
    return done;
  }
  for (const crd of csv.spec?.customresourcedefinitions?.owned ?? []) {
    if (!crd.name.includes('.')) {
      context.logger.warn('owned CRD name is not <plural>.<group>; not syncing', { crd: crd.name });
      return done;
    }
  }
  const labelled = await ensureApiLabels(shared, csv);
  if (labelled) return done;

  const groups = context.cache.list(Kinds.operatorGroup, { namespace: csv.metadata.namespace });
  if (groups.length === 0) {
    await fail(shared, csv, CSVReasons.NoOperatorGroup, CSVMessages.noOperatorGroup);
    return done;
  }
  if (groups.length > 1) {
    await fail(shared, csv, CSVReasons.TooManyOperatorGroups, CSVMessages.tooManyOperatorGroups);
    return done;
  }
  const og = groups[0]!;
  const targets = og.status?.namespaces;
  if (targets) {
    const wanted = {
      [Annotations.operatorGroup]: og.metadata.name,
      [Annotations.operatorNamespace]: og.metadata.namespace,
      [Annotations.targetNamespaces]: formatTargetNamespaces(targets),
    };
    const annotations = csv.metadata.annotations ?? {};
    if (Object.entries(wanted).some(([key, value]) => annotations[key] !== value)) {
      await updateObject<Csv>(shared.client(), csvReference(csv), (live) => {
        live.metadata.annotations = { ...(live.metadata.annotations ?? {}), ...wanted };
      });
      if (targets.length === 0) await fail(shared, csv, CSVReasons.NoTargetNamespaces, CSVMessages.noTargetNamespacesMatched);
      return done;
    }
    // Not upstream, which fails only when it writes the annotations: an empty target list is written as
    // "", which would read back as AllNamespaces on the next sync. It stays a failure while it is empty.
    if (targets.length === 0) {
      await fail(shared, csv, CSVReasons.NoTargetNamespaces, CSVMessages.noTargetNamespacesMatched);
      return done;
    }
  }

  let modes;
  try {
    modes = toInstallModeSet(csv.spec?.installModes);
  } catch (error) {
    await fail(shared, csv, CSVReasons.InvalidInstallModes, describeError(error));
    return done;
  }
  const annotation = csv.metadata.annotations?.[Annotations.targetNamespaces];
  if (annotation === undefined) {
    await fail(shared, csv, CSVReasons.NoTargetNamespaces, CSVMessages.missingTargetNamespacesAnnotation);
    return done;
  }
  const unsupported = unsupportedTargetsReason(modes, csv.metadata.namespace, annotation.split(','));
  if (unsupported) {
    await fail(shared, csv, CSVReasons.UnsupportedOperatorGroup, unsupported);
    return done;
  }
  return providedApiCheck(shared, csv, og, context);
}

/** `olm.api.<fnv64a(Kind.version.group)>: provided` on the CSV for each API it provides. */
async function ensureApiLabels(shared: Pick<PhaseWriter, 'client'>, csv: Csv): Promise<boolean> {
  const wanted = new Map([...csvProvidedApis(csv)].map((api) => [`${Labels.apiPrefix}${fnv64aHex(api)}`, 'provided']));
  const labels = csv.metadata.labels ?? {};
  const stale = Object.keys(labels).filter((key) => key.startsWith(Labels.apiPrefix) && !wanted.has(key));
  const missing = [...wanted].filter(([key, value]) => labels[key] !== value);
  if (stale.length === 0 && missing.length === 0) return false;
  await updateObject<Csv>(shared.client(), csvReference(csv), (live) => {
    const next = { ...(live.metadata.labels ?? {}) };
    for (const key of Object.keys(next)) if (key.startsWith(Labels.apiPrefix) && !wanted.has(key)) delete next[key];
    for (const [key, value] of wanted) next[key] = value;
    live.metadata.labels = next;
  });
  return true;
}

function groupView(og: Og): GroupApiView {
  return {
    namespace: og.metadata.namespace,
    name: og.metadata.name,
    targetNamespaces: og.status?.namespaces ?? [],
    providedApis: parseProvidedApis(og.metadata.annotations?.[Annotations.providedAPIs]),
    staticProvidedApis: og.spec?.staticProvidedAPIs === true,
  };
}

/** §2.4: add to or remove from the group's `olm.providedAPIs`, or fail on a conflict. */
async function providedApiCheck(shared: PhaseWriter, csv: Csv, og: Og, context: ReconcileContext): Promise<Step> {
  const provided = csvProvidedApis(csv);
  const group = groupView(og);
  const others = (context.cache.list(Kinds.operatorGroup)).map(groupView);
  const result = reconcileApiIntersection(group, others, provided);
  if (result === 'NoAPIConflict') return proceed;
  const conflicting = result === 'APIConflict' || (group.staticProvidedApis && (result === 'AddAPIs' || result === 'RemoveAPIs'));
  // As upstream: a CSV already failed for an owner conflict keeps that reason (its deployments are gone).
  if (conflicting && csv.status?.reason === CSVReasons.InterOperatorGroupOwnerConflict) return done;
  if (group.staticProvidedApis && (result === 'AddAPIs' || result === 'RemoveAPIs')) {
    await deleteDeployments(shared, csv);
    await fail(shared, csv, CSVReasons.CannotModifyStaticOperatorGroupProvidedAPIs, CSVMessages.staticProvidedAPIsCannotChange);
    return done;
  }
  if (result === 'APIConflict') {
    await deleteDeployments(shared, csv);
    await fail(shared, csv, CSVReasons.InterOperatorGroupOwnerConflict, CSVMessages.intersectingGroupsProvideSameAPIs);
    return done;
  }
  let written = false;
  await updateObject<Og>(shared.client(), ogReference(og), (live) => {
    const current = parseProvidedApis(live.metadata.annotations?.[Annotations.providedAPIs]);
    const next = result === 'AddAPIs' ? new Set([...current, ...provided]) : new Set([...current].filter((api) => !provided.has(api)));
    const value = formatProvidedApis(next);
    const annotations = { ...(live.metadata.annotations ?? {}) };
    if (value === '') delete annotations[Annotations.providedAPIs];
    else annotations[Annotations.providedAPIs] = value;
    if (isSemanticallyEqual(annotations, live.metadata.annotations)) return false;
    live.metadata.annotations = annotations;
    written = true;
  });
  // As upstream: an AddAPIs with nothing left to add (the annotation holds what the cached group did
  // not show) lets the CSV go on, else it would wait for a group update that never comes.
  if (!written && result === 'AddAPIs') return proceed;
  // The group's update requeues this CSV.
  return done;
}

async function deleteDeployments(shared: Pick<PhaseWriter, 'client'>, csv: Csv): Promise<void> {
  const client = shared.client();
  const owned = await client.list(Kinds.deployment, { namespace: csv.metadata.namespace, labelSelector: ownedDeploymentSelector(csv) });
  for (const deployment of owned.items) {
    await client.delete({ ...Kinds.deployment, namespace: csv.metadata.namespace, name: deployment.metadata?.name ?? '' }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
}

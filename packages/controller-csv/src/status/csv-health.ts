import { CSVMessages, CSVPhases, CSVReasons } from '@olm/api';
import { describeError, type RbacGenerator, type ReconcileContext, type ReconcileResult } from '@olm/core';
import { upsertOwnedFields } from '@olm/controller-runtime';
import { apiServiceResourceProblem } from '../serving/api-services.js';
import { certRenewalReason } from '../serving/cert-install.js';
import { hasCertResources } from '../serving/cert-resources.js';
import { expectedServing, type InstallDependencies, installChecks } from '../install/csv-install.js';
import { fail, invalidStrategy, setPhase, strategyFor } from './csv-phase.js';
import { crdOwnerConflict, isFailForward, replacedCsv, replacingCsv } from '../csv-replacement.js';
import { apiServiceOwnerConflict, type RequirementDependencies, requirementsOf } from '../requirements/csv-requirements.js';
import { installOutcome, isInstalled, ServingMessages } from '../install/install-outcome.js';
import { fieldManager, Kinds, kubeObjectOf } from '../kinds.js';
import { readServingSnapshot, type ServingSnapshot } from '../serving/serving-snapshot.js';
import type { Csv } from '../shared.js';
import type { CsvMetrics } from './metrics.js';

/** What re-checking an installed or failed CSV takes: installing again, its requirements, the RBAC generator, metrics. */
export interface HealthDependencies extends InstallDependencies, RequirementDependencies {
  rbac(): RbacGenerator;
  metrics(): CsvMetrics | undefined;
  /** Re-check of a Succeeded CSV's APIService and webhook resources and certificates. */
  readonly requeueAfterMs: number;
}
import { webhookDescriptionProblem } from '../serving/webhook-descriptions.js';

// The Succeeded and Failed rows of the phase switch: is what was installed still healthy, and may a failed CSV retry.

const recoverableGroupReasons: readonly string[] = [
  CSVReasons.NoTargetNamespaces,
  CSVReasons.NoOperatorGroup,
  CSVReasons.TooManyOperatorGroups,
  CSVReasons.UnsupportedOperatorGroup,
];

/** Succeeded: replaced, or serving resources, requirements and health re-checked (then the per-API ClusterRoles). */
export async function succeeded(shared: HealthDependencies, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  const replacer = replacingCsv(csv, context);
  if (replacer) {
    // A chain hands over one link at a time: while the CSV this one replaced is still there and not yet
    // Deleting (it may not have seen this one succeed yet: caches lag), this one stays Succeeded, so the newer CSV cannot start installing
    // before the oldest is on its way out (upstream's TestUpdates order); that CSV's change requeues this one.
    const previous = replacedCsv(csv, context);
    if (previous && previous.status?.phase !== CSVPhases.Deleting) return;
    if (await setPhase(shared, csv, CSVPhases.Replacing, CSVReasons.BeingReplaced, CSVMessages.beingReplaced(replacer.metadata.name))) {
      shared.metrics()?.upgraded();
    }
    return;
  }
  const strategy = strategyFor(shared, csv);
  if (!strategy) return invalidStrategy(shared, csv);
  const serving = await readServingSnapshot(shared.client(), csv);
  if (await servingResourcesChanged(shared, csv, context, serving, 'Succeeded')) return;
  const requirements = await requirementsOf(shared, csv, context);
  if ('invalid' in requirements) return invalidStrategy(shared, csv, requirements.invalid);
  if (!requirements.met) {
    await setPhase(shared, csv, CSVPhases.Failed, CSVReasons.RequirementsNotMet, CSVMessages.requirementsNoLongerMet, requirements.statuses);
    return;
  }
  const caBundles = await expectedServing(shared, csv, context, serving);
  if (!caBundles) return;
  const checks = await installChecks(shared, csv, strategy, context, serving, caBundles);
  const outcome = installOutcome(checks, CSVPhases.Failed, CSVReasons.ComponentUnhealthy);
  if (outcome === 'retry') return { requeueAfter: shared.healthPollMs };
  await setPhase(shared, csv, outcome.phase, outcome.reason, outcome.message);
  if (isInstalled(checks)) await ensureProvidedApiClusterRoles(shared, csv, context, serving);
  // Nothing watches the Secrets, Services and webhook configurations it depends on, nor the clock.
  if (hasCertResources(csv)) return { requeueAfter: shared.requeueAfterMs };
}

/**
 * For a CSV owning APIServices or webhooks, on Succeeded and Failed (upstream order): the resources OLM
 * generated for its APIServices must be intact, and its serving certificates not due for renewal, both
 * as the sync's snapshot shows them. Returns true when it moved the CSV (or, failed and not actionable,
 * left it so).
 */
async function servingResourcesChanged(shared: HealthDependencies, csv: Csv, context: ReconcileContext, serving: ServingSnapshot, from: 'Succeeded' | 'Failed'): Promise<boolean> {
  if (!hasCertResources(csv)) return false;
  const problem = apiServiceResourceProblem(csv, serving, context.cache);
  if (problem) {
    context.logger.info('API resources are unavailable', { csv: csv.metadata.name, problem: problem.message });
    if (from === 'Succeeded') await fail(shared, csv, CSVReasons.APIServiceResourceIssue, problem.message);
    // An APIService someone else owns keeps the CSV failed: reinstalling cannot take it.
    else if (problem.actionable) await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.APIServiceResourcesNeedReinstall, problem.message);
    return true;
  }
  const renewal = certRenewalReason(csv, serving, shared.now());
  if (renewal) {
    context.logger.info('CSV owns resources that require a cert refresh', { csv: csv.metadata.name, reason: renewal });
    const message = from === 'Succeeded' ? ServingMessages.certRefreshRequired : CSVMessages.needsCertRefresh;
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.NeedsCertRotation, message);
    return true;
  }
  return false;
}

async function ensureProvidedApiClusterRoles(shared: HealthDependencies, csv: Csv, context: ReconcileContext, serving: ServingSnapshot): Promise<void> {
  const owned = csv.spec?.customresourcedefinitions?.owned ?? [];
  if (owned.length === 0 && (csv.spec?.apiservicedefinitions?.owned ?? []).length === 0) return;
  const crds = owned.flatMap((crd) => {
    const cached = context.cache.get(Kinds.customResourceDefinition, crd.name);
    return cached ? [kubeObjectOf(cached, Kinds.customResourceDefinition)] : [];
  });
  const apiServices = [...serving.apiServices.values()].flatMap((apiService) => (apiService ? [kubeObjectOf(apiService, Kinds.apiService)] : []));
  let roles;
  try {
    roles = shared.rbac().providedApiClusterRoles({ csv, crds, apiServices });
  } catch (error) {
    context.logger.warn("couldn't generate clusterroles for provided api types", { error: describeError(error) });
    return;
  }
  for (const role of roles) {
    await upsertOwnedFields(shared.client(), context.cache, role, ['metadata.labels', 'rules', 'aggregationRule'], { fieldManager });
  }
}

/** Failed: fail-forward replacement, or back to Pending once the cause is over. */
export async function failed(shared: HealthDependencies, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  if (isFailForward(csv, context)) {
    const replacer = replacingCsv(csv, context);
    if (replacer) {
      const message = CSVMessages.failForwardBeingReplaced(CSVPhases.Failed, replacer.metadata.name);
      if (await setPhase(shared, csv, CSVPhases.Replacing, CSVReasons.BeingReplaced, message)) shared.metrics()?.upgraded();
      return;
    }
  }
  const strategy = strategyFor(shared, csv);
  const reason = csv.status?.reason ?? '';
  if (!strategy) {
    if (reason !== CSVReasons.InvalidStrategy) await invalidStrategy(shared, csv);
    return;
  }
  // The pre-checks passed, so a group-related failure is over.
  if (recoverableGroupReasons.includes(reason)) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsUnknown, CSVMessages.installModesNowSupported);
    return;
  }
  if (reason === CSVReasons.InterOperatorGroupOwnerConflict) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsUnknown, CSVMessages.noLongerIntersecting);
    return;
  }
  if (reason === CSVReasons.CannotModifyStaticOperatorGroupProvidedAPIs) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsUnknown, CSVMessages.staticGroupsNowSupportAPIs);
    return;
  }
  // Not upstream: a CSV failed on an owner conflict stays Failed while the conflict lasts (no Pending ↔ Failed loop).
  if (reason === CSVReasons.OwnerConflict && (crdOwnerConflict(csv, context) || (await apiServiceOwnerConflict(shared, csv, context)))) return;
  const requirements = await requirementsOf(shared, csv, context);
  // Not upstream, which alternates with Pending/RequirementsNotMet: an invalid strategy stays Failed until the CSV changes.
  if ('invalid' in requirements) return invalidStrategy(shared, csv, requirements.invalid);
  if (!requirements.met) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsNotMet, CSVMessages.requirementsNotMet, requirements.statuses);
    return;
  }
  // Not upstream either (it reinstalls, then fails again in Pending): refused webhooks stay refused while unchanged.
  if (reason === CSVReasons.InvalidWebhookDescription && webhookDescriptionProblem(csv) === csv.status?.message) return;
  const serving = await readServingSnapshot(shared.client(), csv);
  if (await servingResourcesChanged(shared, csv, context, serving, 'Failed')) return { requeueAfter: shared.requeueAfterMs };
  const caBundles = await expectedServing(shared, csv, context, serving);
  if (!caBundles) return;
  const checks = await installChecks(shared, csv, strategy, context, serving, caBundles);
  const outcome = installOutcome(checks, CSVPhases.Pending, CSVReasons.NeedsReinstall);
  if (outcome === 'retry') return { requeueAfter: shared.healthPollMs };
  await setPhase(shared, csv, outcome.phase, outcome.reason, outcome.message);
  if (outcome.phase === CSVPhases.Failed) return { requeueAfter: shared.healthPollMs };
}

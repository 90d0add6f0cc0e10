import { Approvals, InstallPlanPhases, ownerReferenceTo, type Approval } from '@olm/api';
import { isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import type { CachedObject } from '@olm/core';
import type { Step } from '../bundles/bundle-steps.js';
import type { BundleLookup } from '../resolution/step-resolution.js';
import type { InstallPlanDeps } from './install-plan-deps.js';
import { nextInstallPlanGeneration } from './install-plan-rules.js';
import { Kinds, nameOf, type InstallPlanObject, type SubscriptionObject } from '../kinds.js';

/** An ObjectReference to an InstallPlan, as Subscriptions record it. */
export function referenceOf(plan: CachedObject) {
  return {
    apiVersion: Kinds.installPlan.apiVersion,
    kind: Kinds.installPlan.kind,
    name: nameOf(plan),
    namespace: plan.metadata?.namespace ?? '',
    uid: plan.metadata?.uid ?? '',
    resourceVersion: plan.metadata?.resourceVersion ?? '',
  };
}

/**
 * The InstallPlan of this resolution: an existing plan of the next generation for the same CSVs is
 * reused (a restart between creating it and updating the Subscriptions), else a new one is created
 * and its status (phase, plan, catalog sources, the bundle lookups of image-only bundles) written
 * through the status subresource.
 */
export async function ensureInstallPlan(
  context: InstallPlanDeps,
  namespace: string,
  subscriptions: readonly (CachedObject & { readonly status?: Pick<NonNullable<SubscriptionObject['status']>, 'installPlanGeneration'> })[],
  plans: readonly InstallPlanObject[],
  steps: readonly Step[],
  approval: Approval,
  bundleLookups: readonly BundleLookup[] = [],
) {
  const client = context.client();
  const csvNames = steps.filter((step) => step.resource.kind === 'ClusterServiceVersion').map((step) => step.resource.name);
  const subscriptionGenerations = subscriptions.map((sub) => sub.status?.installPlanGeneration);
  const planGeneration = (plan: InstallPlanObject) => Number(plan.spec?.generation ?? 0);
  const reusableGeneration = nextInstallPlanGeneration(subscriptionGenerations, []);
  let plan = plans.find(
    (candidate) =>
      planGeneration(candidate) === reusableGeneration &&
      isSemanticallyEqual(candidate.spec?.clusterServiceVersionNames ?? [], csvNames),
  );
  if (!plan) {
    const generation = nextInstallPlanGeneration(subscriptionGenerations, plans.map(planGeneration));
    plan = await client.create<InstallPlanObject>({
      apiVersion: Kinds.installPlan.apiVersion,
      kind: Kinds.installPlan.kind,
      metadata: {
        generateName: 'install-',
        namespace,
        ownerReferences: subscriptions.map((sub) => ownerReferenceTo(Kinds.subscription, sub, { controller: false, blockOwnerDeletion: false })),
      },
      spec: { clusterServiceVersionNames: csvNames, approval, approved: approval === Approvals.Automatic, generation },
    });
  }
  if (!plan.status?.plan?.length) {
    const catalogSources = [...new Set(steps.map((step) => step.resource.sourceName))];
    plan = await updateStatus<InstallPlanObject>(
      client,
      { ...Kinds.installPlan, namespace, name: nameOf(plan) },
      (latest) => {
        if (latest.status?.plan?.length) return false;
        latest.status = {
          phase: approval === Approvals.Manual ? InstallPlanPhases.RequiresApproval : InstallPlanPhases.Installing,
          plan: [...steps],
          catalogSources,
          ...(bundleLookups.length > 0 ? { bundleLookups: [...bundleLookups] } : {}),
        };
        return true;
      },
      { fieldManager: context.fieldManager },
    );
  }
  return { reference: referenceOf(plan), generation: planGeneration(plan) };
}

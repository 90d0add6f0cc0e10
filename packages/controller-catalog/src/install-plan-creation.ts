import { isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import type { Step } from './bundle-steps.js';
import type { BundleLookup } from './step-resolution.js';
import type { CatalogControllerContext } from './controller-context.js';
import { installPlanApproval, nextInstallPlanGeneration } from './install-plan-rules.js';
import { Kinds, nameOf, type AnyObject } from './kinds.js';

/** What creating an InstallPlan reads of the namespace's Subscriptions. */
export interface PlanningSubscription extends AnyObject {
  spec?: { installPlanApproval?: string; [field: string]: unknown };
  status?: { installPlanGeneration?: number; [field: string]: unknown };
}

/** An ObjectReference to an InstallPlan, as Subscriptions record it. */
export function referenceOf(plan: AnyObject) {
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
  context: CatalogControllerContext,
  namespace: string,
  subscriptions: readonly PlanningSubscription[],
  plans: readonly AnyObject[],
  steps: readonly Step[],
  bundleLookups: readonly BundleLookup[] = [],
) {
  const client = context.client();
  const csvNames = steps.filter((step) => step.resource.kind === 'ClusterServiceVersion').map((step) => step.resource.name);
  const approval = installPlanApproval(subscriptions.map((sub) => sub.spec?.installPlanApproval));
  const subscriptionGenerations = subscriptions.map((sub) => sub.status?.installPlanGeneration);
  const planGeneration = (plan: AnyObject) => Number((plan.spec as { generation?: number } | undefined)?.generation ?? 0);
  const reusableGeneration = nextInstallPlanGeneration(subscriptionGenerations, []);
  let plan = plans.find(
    (candidate) =>
      planGeneration(candidate) === reusableGeneration &&
      isSemanticallyEqual((candidate.spec as { clusterServiceVersionNames?: string[] } | undefined)?.clusterServiceVersionNames ?? [], csvNames),
  );
  if (!plan) {
    const generation = nextInstallPlanGeneration(subscriptionGenerations, plans.map(planGeneration));
    plan = await client.create<AnyObject>({
      apiVersion: Kinds.installPlan.apiVersion,
      kind: Kinds.installPlan.kind,
      metadata: {
        generateName: 'install-',
        namespace,
        ownerReferences: subscriptions.map((sub) => ({
          apiVersion: Kinds.subscription.apiVersion,
          kind: Kinds.subscription.kind,
          name: nameOf(sub),
          uid: sub.metadata?.uid ?? '',
          controller: false,
          blockOwnerDeletion: false,
        })),
      },
      spec: { clusterServiceVersionNames: csvNames, approval, approved: approval === 'Automatic', generation },
    });
  }
  if (!((plan.status as { plan?: unknown[] } | undefined)?.plan?.length)) {
    const catalogSources = [...new Set(steps.map((step) => step.resource.sourceName))];
    plan = await updateStatus<AnyObject>(
      client,
      { ...Kinds.installPlan, namespace, name: nameOf(plan) },
      (latest) => {
        if ((latest.status as { plan?: unknown[] } | undefined)?.plan?.length) return false;
        latest.status = {
          phase: approval === 'Manual' ? 'RequiresApproval' : 'Installing',
          plan: steps,
          catalogSources,
          ...(bundleLookups.length > 0 ? { bundleLookups } : {}),
        };
        return true;
      },
      { fieldManager: context.fieldManager },
    );
  }
  return { reference: referenceOf(plan), generation: planGeneration(plan) };
}

import { Approvals, InstallPlanPhases, type Approval } from '@olm/api';
import { bundlesForALaterPlan } from './approval-split.js';
import { describeError, OlmError, signaturePolicyAnnotation, type BundlePullResult, type CachedObject, type NamespaceResolution as Resolution, type ResolverCatalog } from '@olm/core';
import { propertiesAnnotationValue, stepsFromBundle, subscriptionStep, type Step } from '../bundles/bundle-steps.js';
import { bundleManifests, isImageOnly } from '../bundles/bundle-manifests.js';
import type { BundleUnpackSettings } from '../bundles/bundle-unpack-settings.js';
import type { ResolutionDeps } from './resolution-deps.js';
import { installPlanApproval } from '../install-plans/install-plan-rules.js';
import { nameOf, type CatalogSourceObject, type CsvObject, type InstallPlanObject } from '../kinds.js';
import type { LiveSubscription } from './namespace-snapshot.js';

/** A bundle whose image is being unpacked, or failed to be. */
export type Unfinished = Exclude<BundlePullResult, { state: 'unpacked' }>;

/** An image-only bundle the plan installs, as upstream lists it in the InstallPlan's `status.bundleLookups`. */
export interface BundleLookup {
  readonly path: string;
  readonly identifier: string;
  readonly replaces: string;
  readonly catalogSourceRef: { readonly namespace: string; readonly name: string };
  /** The bundle's properties as the CSV annotation holds them: `{"properties":[…]}`. */
  readonly properties: string;
}

export interface StepResolutionInput {
  readonly namespace: string;
  readonly resolution: Resolution;
  readonly catalogs: readonly ResolverCatalog[];
  /** The namespace's Subscriptions, CSVs and the CatalogSources resolution saw (their uid and pull secrets go with an unpack). */
  readonly subscriptions: readonly LiveSubscription[];
  readonly csvs: readonly CsvObject[];
  readonly sources: readonly CatalogSourceObject[];
  /** The namespace's InstallPlans: a bundle already in an unfinished plan a Subscription references is not planned again. */
  readonly plans: readonly InstallPlanObject[];
  /** The OperatorGroup's unpack timeout and retry interval. */
  readonly unpack: BundleUnpackSettings;
}

export interface StepResolution {
  readonly steps: Step[];
  /** Subscription name → its new currentCSV. */
  readonly updated: Map<string, string>;
  /** Image-only bundles not unpacked yet (pending or failed). */
  readonly unpacking: Unfinished[];
  readonly bundleLookups: BundleLookup[];
  /**
   * `Manual` when a Subscription whose bundle is in these steps asks for it, else `Automatic`: a plan that holds
   * no Manual Subscription's bundle does not wait for approval (upstream makes every plan of a namespace Manual
   * as soon as one Subscription in it is).
   */
  readonly approval: Approval;
}

/** Upstream's step resolver: steps for bundles whose Subscriptions do not have them yet, and the new currentCSVs. */
export async function resolveSteps(context: ResolutionDeps, input: StepResolutionInput): Promise<StepResolution> {
  const { namespace, resolution, catalogs, csvs, subscriptions, sources } = input;
  const steps: Step[] = [];
  const updated = new Map<string, string>();
  const unpacking: Unfinished[] = [];
  const bundleLookups: BundleLookup[] = [];
  const approvals: (string | undefined)[] = [];
  const planned = bundlesInReferencedPlans(input.plans, subscriptions);
  const matchingOf = (operator: Resolution['operators'][number]) =>
    subscriptions.filter(
      (sub) =>
        sub.spec?.name === operator.package &&
        (!sub.spec?.channel || sub.spec.channel === operator.channel) &&
        (!sub.spec?.source || (sub.spec.source === operator.catalog.name && sub.spec.sourceNamespace === operator.catalog.namespace)),
    );
  // Waiting for approval (or being installed) in a plan of its own: not pulled into this one.
  const candidates = resolution.operators.filter((operator) => !operator.existing && !planned.has(operator.name));
  const later = bundlesForALaterPlan(
    candidates.map((operator) => ({
      name: operator.name,
      package: operator.package,
      manual: installPlanApproval(matchingOf(operator).map((sub) => sub.spec?.installPlanApproval)) === Approvals.Manual,
      subscribed: matchingOf(operator).length > 0,
      properties: catalogs.find((candidate) => candidate.name === operator.catalog.name && candidate.namespace === operator.catalog.namespace)?.content.packages.get(operator.package)?.bundles.get(operator.name)?.properties ?? [],
    })),
  );
  for (const operator of candidates) {
    if (later.has(operator.name)) continue;
    const matching = matchingOf(operator);
    const csvExists = csvs.some((csv) => nameOf(csv) === operator.name);
    if (matching.length > 0 && csvExists && matching.every((sub) => sub.status?.currentCSV === operator.name)) continue;
    const catalog = catalogs.find((candidate) => candidate.name === operator.catalog.name && candidate.namespace === operator.catalog.namespace);
    const listed = catalog?.content.packages.get(operator.package)?.bundles.get(operator.name);
    if (!catalog || !listed) throw new Error(`bundle ${operator.name} not found in catalogsource ${operator.catalog.namespace}/${operator.catalog.name}`);
    let bundle: typeof listed;
    try {
      bundle = await context.connections.bundleWithManifests(catalog.content, listed, operator.channel);
    } catch (error) {
      throw new Error(`error using catalogsource ${operator.catalog.namespace}/${operator.catalog.name}: ${describeError(error)}`);
    }
    const source = sources.find((candidate) => nameOf(candidate) === operator.catalog.name && candidate.metadata?.namespace === operator.catalog.namespace);
    const pullSecrets: unknown = source?.spec?.secrets;
    const contents: BundlePullResult = !isImageOnly(bundle)
      ? { state: 'unpacked', manifests: bundleManifests(bundle) }
      : await puller(context, bundle.name).pull({
          bundle,
          catalog: operator.catalog,
          ...(source?.metadata?.uid ? { catalogUid: source.metadata.uid } : {}),
          ...(Array.isArray(pullSecrets) ? { pullSecrets: pullSecrets.filter((name): name is string => typeof name === 'string') } : {}),
          ...signaturePolicyOf(source),
          ...input.unpack,
        });
    if (contents.state !== 'unpacked') {
      unpacking.push(contents);
      continue;
    }
    if (isImageOnly(bundle)) {
      bundleLookups.push({
        path: bundle.image,
        identifier: operator.name,
        replaces: operator.replaces ?? '',
        catalogSourceRef: { namespace: operator.catalog.namespace, name: operator.catalog.name },
        properties: propertiesAnnotationValue(bundle.properties),
      });
    }
    steps.push(
      ...stepsFromBundle({
        bundleName: operator.name,
        properties: bundle.properties,
        manifests: contents.manifests,
        namespace,
        replaces: operator.replaces ?? '',
        catalog: operator.catalog,
        rbac: context.rbacGenerator(),
      }),
    );
    if (matching.length === 0) {
      steps.push(subscriptionStep(namespace, { package: operator.package, channel: operator.channel, catalog: operator.catalog, startingCSV: operator.name }));
    }
    for (const sub of matching) if (sub.status?.currentCSV !== operator.name) updated.set(nameOf(sub), operator.name);
    approvals.push(...matching.map((sub) => sub.spec?.installPlanApproval));
  }
  return { steps, updated, unpacking, bundleLookups, approval: installPlanApproval(approvals) };
}

/** The CSVs of the unfinished InstallPlans (approval pending, installing) that some Subscription references. */
function bundlesInReferencedPlans(plans: readonly InstallPlanObject[], subscriptions: readonly LiveSubscription[]): Set<string> {
  const referenced = new Set(subscriptions.map((sub) => sub.status?.installPlanRef?.name).filter(Boolean));
  const unfinished = plans.filter(
    (plan) => referenced.has(nameOf(plan)) && (plan.status?.phase === InstallPlanPhases.RequiresApproval || plan.status?.phase === InstallPlanPhases.Installing),
  );
  return new Set(unfinished.flatMap((plan) => plan.spec?.clusterServiceVersionNames ?? []));
}

/** The booted bundle puller; without one an image-only bundle cannot be installed, and resolution fails saying so. */
function puller(context: ResolutionDeps, bundleName: string) {
  const found = context.bundlePuller();
  if (!found) {
    throw new OlmError(
      'OLM_CATALOG_NO_BUNDLE_PULLER',
      `bundle ${bundleName} only names its image and no bundle puller is booted to unpack it; boot a bundle puller plugin such as @olm/bundle-puller's bundlePullerPlugin`,
    );
  }
  return found;
}

/** The catalog's `olm.operatorframework.io/signature-policy`: its bundle images are unpacked only once verified under it. */
function signaturePolicyOf(source: { metadata?: { annotations?: Record<string, string> | null } } | undefined): { signaturePolicy?: string } {
  const policy = source?.metadata?.annotations?.[signaturePolicyAnnotation];
  return typeof policy === 'string' && policy !== '' ? { signaturePolicy: policy } : {};
}

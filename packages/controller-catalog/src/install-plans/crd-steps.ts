import { isCopied, StepStatuses, type StepStatus } from '@olm/api';
import { type CachedObject, hasErrorCode, type KubeClient, type ObjectReader, OlmError } from '@olm/core';
import { isAlreadyExists, isNotFound } from '@olm/controller-runtime';
import { checkCrdUpgrade, isCrdView, type CrdUpgradeVerdict, type CustomResource } from '@olm/crd-upgrade-safety';
import type { Step } from '../bundles/bundle-steps.js';
import type { InstallPlanDeps } from './install-plan-deps.js';
import { installedAlongside, withInstalledAlongside, type CsvReference } from './installed-alongside.js';
import { Kinds, nameOf, type AnyObject, type CrdObject, type CsvObject } from '../kinds.js';

// The CustomResourceDefinition steps of an InstallPlan: created (then waited on until served) or, when one
// exists, checked for upgrade safety and replaced, with upstream's installed-alongside annotations.

/**
 * Upstream's installed-alongside annotations for a CRD applied for `resolving`: that CSV, plus the
 * CSVs the CRD (as shipped, and as it is now) was installed alongside that still exist and are not copies.
 * A CRD shared by an operator installed in many namespaces names every one of them, so the CSVs are
 * read from the cache (as upstream reads its lister); one the cache lacks is looked up live, since
 * it may be new or in a namespace the cache does not watch.
 */
async function alongsideAnnotations(
  client: KubeClient,
  cache: ObjectReader | undefined,
  namespace: string,
  resolving: string,
  ...sources: AnyObject[]
): Promise<Record<string, string>> {
  const csvs: CsvReference[] = [];
  for (const reference of sources.flatMap((source) => installedAlongside(source.metadata?.annotations))) {
    if ((reference.namespace === namespace && reference.name === resolving) || csvs.some((known) => known.namespace === reference.namespace && known.name === reference.name)) continue;
    let csv: CsvObject | undefined;
    try {
      csv = cachedCsv(cache, reference) ?? (await client.find<CsvObject>({ ...Kinds.clusterServiceVersion, namespace: reference.namespace, name: reference.name }));
      if (!csv) continue;
    } catch {
      // Unsure whether it exists: keep it, as upstream does, and look again next time.
    }
    if (csv && isCopied(csv)) continue;
    csvs.push(reference);
  }
  if (namespace && resolving) csvs.push({ namespace, name: resolving });
  return withInstalledAlongside(sources[0]?.metadata?.annotations, csvs);
}

function cachedCsv(cache: ObjectReader | undefined, reference: CsvReference): CsvObject | undefined {
  try {
    return cache?.get(Kinds.clusterServiceVersion, reference.name, reference.namespace);
  } catch {
    return undefined; // CSVs are not cached here
  }
}

/** Create → WaitingForApi; exists → the upgrade safety check, then replace → Present. */
export async function applyCrd(
  context: InstallPlanDeps,
  client: KubeClient,
  cache: ObjectReader | undefined,
  plan: CachedObject,
  resolving: string,
  shipped: AnyObject,
  checked: CheckedCrd | undefined,
): Promise<StepStatus> {
  const namespace = plan.metadata?.namespace ?? '';
  const crd: AnyObject = { ...shipped, metadata: { ...shipped.metadata, annotations: await alongsideAnnotations(client, cache, namespace, resolving, shipped) } };
  try {
    await client.create(crd, { fieldManager: context.fieldManager });
    return StepStatuses.WaitingForAPI;
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  const existing = await client.get<AnyObject>({ ...Kinds.customResourceDefinition, name: nameOf(crd) });
  // The pre-flight verdict stands while the CRD is the one it checked.
  const verdict =
    checked && checked.resourceVersion === existing.metadata?.resourceVersion ? checked.verdict : await checkUpgrade(client, existing, crd);
  // Upstream records these as events only; installplan_warnings_total counts API warnings.
  for (const warning of verdict.warnings) void context.events().warning(plan, 'CRDValidation', warning);
  if (verdict.error) throw new OlmError('OLM_CATALOG_CRD_UPGRADE_REFUSED', verdict.error);
  const alongside = await alongsideAnnotations(client, cache, namespace, resolving, shipped, existing);
  const updated: AnyObject = {
    ...crd,
    metadata: {
      ...existing.metadata,
      labels: { ...existing.metadata?.labels, ...(crd.metadata?.labels ?? {}) },
      annotations: withInstalledAlongside({ ...existing.metadata?.annotations, ...(shipped.metadata?.annotations ?? {}) }, installedAlongside(alongside)),
    },
    status: existing.status,
  };
  await client.replace(updated, { fieldManager: context.fieldManager });
  return StepStatuses.Present;
}

/** A CRD step's upgrade verdict, for the version of the existing CRD it was given against. */
export interface CheckedCrd {
  readonly resourceVersion: string | undefined;
  readonly verdict: CrdUpgradeVerdict;
}

const checkUpgrade = async (client: KubeClient, existing: AnyObject, shipped: AnyObject): Promise<CrdUpgradeVerdict> => {
  if (!isCrdView(existing) || !isCrdView(shipped)) {
    throw new OlmError('OLM_CATALOG_INVALID_CRD', `customresourcedefinition ${JSON.stringify(nameOf(shipped))} cannot be checked for upgrade: it needs metadata.name, spec.group, spec.names.kind and spec.versions[].name`);
  }
  return checkCrdUpgrade(existing, shipped, (version) => listAll(client, { apiVersion: `${shipped.spec.group}/${version}`, kind: shipped.spec.names.kind }));
};

/**
 * Upstream's intent is that nothing of a new version runs when one of its CRDs is refused, but steps
 * apply in order and the CSV comes first. So every CRD replacement the plan still has to make is
 * checked before any step is applied; a refusal stops the plan with nothing created.
 */
export async function checkCrdUpgrades(client: KubeClient, steps: readonly Step[]): Promise<Map<number, CheckedCrd>> {
  const checked = new Map<number, CheckedCrd>();
  for (const [index, step] of steps.entries()) {
    if (step.resource.kind !== 'CustomResourceDefinition' || step.status === StepStatuses.Present || step.status === StepStatuses.Created) continue;
    let shipped: AnyObject;
    try {
      shipped = JSON.parse(step.resource.manifest ?? '') as AnyObject;
    } catch {
      continue; // applying the step reports it as UnsupportedResource
    }
    const existing = await client.find<AnyObject>({ ...Kinds.customResourceDefinition, name: nameOf(shipped) });
    if (!existing) continue;
    const verdict = await checkUpgrade(client, existing, shipped);
    if (verdict.error) throw new OlmError('OLM_CATALOG_CRD_UPGRADE_REFUSED', verdict.error);
    checked.set(index, { resourceVersion: existing.metadata?.resourceVersion, verdict });
  }
  return checked;
}

async function listAll(client: KubeClient, kind: { apiVersion: string; kind: string }): Promise<CustomResource[]> {
  const items: CustomResource[] = [];
  let next: string | undefined;
  do {
    let page;
    try {
      page = await client.list<CustomResource>(kind, { limit: 500, ...(next ? { continue: next } : {}) });
    } catch (error) {
      if (isNotFound(error) || hasErrorCode(error, 'OLM_RUNTIME_UNKNOWN_KIND')) return items;
      throw error;
    }
    items.push(...page.items);
    next = page.continue;
  } while (next);
  return items;
}

/** Whether a CRD a step created serves its API yet (Established and NamesAccepted), or is gone. */
export async function crdState(client: KubeClient, name: string): Promise<'established' | 'pending' | 'missing'> {
  const crd = await client.find<CrdObject>({ ...Kinds.customResourceDefinition, name });
  if (!crd) return 'missing';
  const conditions = crd.status?.conditions ?? [];
  const isTrue = (type: string) => conditions.some((condition) => condition.type === type && condition.status === 'True');
  return isTrue('Established') && isTrue('NamesAccepted') ? 'established' : 'pending';
}

import { OperatorConditionTypes } from '@olm/api';
import { hasErrorCode, type ReconcileContext } from '@olm/core';
import { isApiServiceAdoptableBy } from '../serving/api-service-ownership.js';
import { findApiService } from '../serving/api-services.js';
import { Kinds } from '../kinds.js';
import { type ApiServiceObject, checkRequirements, discoveryNeeded, type RequirementsResult } from './requirements.js';
import type { KubeClient } from '@olm/core';
import type { Csv } from '../shared.js';

// What the Pending, Succeeded and Failed rows check before installing or keeping a CSV.

/** What reading a CSV's requirements takes: the client, discovery and the server version. */
export interface RequirementDependencies {
  client(): KubeClient;
  serverVersion(): Promise<string | undefined>;
  /** The kinds discovery lists for a group/version (`v1`, `apps/v1`), or undefined when it is not served. */
  servedKinds(groupVersion: string): Promise<ReadonlySet<string> | undefined>;
}

export type RequirementsOutcome = RequirementsResult | { readonly invalid: string };

/** The requirement checks, after reading the discovery documents and APIServices they need. */
export async function requirementsOf(shared: RequirementDependencies, csv: Csv, context: ReconcileContext): Promise<RequirementsOutcome> {
  const served = new Map<string, ReadonlySet<string> | undefined>();
  for (const groupVersion of discoveryNeeded(csv)) served.set(groupVersion, await shared.servedKinds(groupVersion));
  const apiServices = new Map<string, ApiServiceObject | undefined>();
  for (const description of csv.spec?.apiservicedefinitions?.required ?? []) {
    const name = `${description.version}.${description.group}`;
    apiServices.set(name, await findApiService(shared.client(), name));
  }
  try {
    return checkRequirements(csv, {
      cache: context.cache,
      serverVersion: await shared.serverVersion(),
      servedKinds: (groupVersion) => served.get(groupVersion),
      apiService: (name) => apiServices.get(name),
    });
  } catch (error) {
    // upstream: a rule its checker refuses makes the whole install strategy invalid.
    if (hasErrorCode(error, 'OLM_CSV_INVALID_RULE')) return { invalid: (error as Error).message };
    throw error;
  }
}

/** An owned APIService exists and may not be taken over (upstream `apiServiceOwnerConflicts`). */
export async function apiServiceOwnerConflict(shared: Pick<RequirementDependencies, 'client'>, csv: Csv, context: ReconcileContext): Promise<boolean> {
  for (const description of csv.spec?.apiservicedefinitions?.owned ?? []) {
    const apiService = await findApiService(shared.client(), `${description.version}.${description.group}`);
    if (apiService && !isApiServiceAdoptableBy(apiService.metadata?.labels, csv, context.cache)) return true;
  }
  return false;
}

/**
 * Why the replaced CSV's operator may not be upgraded (upstream `isOperatorUpgradeable`), or undefined: its
 * OperatorCondition's `Upgradeable` override wins (only `True` lets it upgrade), else the reported condition,
 * which counts as not upgradeable when it was observed for an older generation. No OperatorCondition means upgradeable.
 */
export function notUpgradeableReason(replaced: Csv, context: ReconcileContext): string | undefined {
  const condition = context.cache.get(Kinds.operatorCondition, replaced.metadata.name, replaced.metadata.namespace);
  if (!condition) return undefined;
  const override = (condition.spec?.overrides ?? []).find((item) => item.type === OperatorConditionTypes.Upgradeable);
  if (override) return override.status === 'True' ? undefined : `The operator is not upgradeable: ${override.message ?? ''}`;
  const reported = (condition.status?.conditions ?? []).find((item) => item.type === OperatorConditionTypes.Upgradeable);
  if (!reported) return undefined;
  if ((reported.observedGeneration ?? 0) < (condition.metadata?.generation ?? 0)) {
    return `The operatorcondition status ${JSON.stringify(reported.type)}=${JSON.stringify(reported.status ?? '')} is outdated`;
  }
  return reported.status === 'False' ? `The operator is not upgradeable: ${reported.message ?? ''}` : undefined;
}

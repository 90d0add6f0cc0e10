import {
  Kinds,
  type CatalogSource,
  type ClusterServiceVersion,
  type ConditionState,
  type CustomResourceDefinition,
  type InstallPlan,
  type OperatorGroup,
  type Subscription,
} from '@olm/api';
import type { CachedObject } from '@olm/core';

/** The kinds the Catalog Operator reads and writes: @olm/api's one table. */
export { Kinds };

/** A plain-JSON object of a kind @olm/api does not model (Pods, Services), or a manifest of a plan step (bundle content, checked where it is applied). */
export type AnyObject = CachedObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

/** The objects of OLM's kinds as the cache and the API server hand them out, typed by @olm/api. */
export type CatalogSourceObject = CatalogSource & CachedObject;
export type SubscriptionObject = Subscription & CachedObject;
export type InstallPlanObject = InstallPlan & CachedObject;
export type CsvObject = ClusterServiceVersion & CachedObject;
export type OperatorGroupObject = OperatorGroup & CachedObject;
/** @olm/api models what a CRD manifest sets; OLM also reads the live CRD's conditions. */
export type CrdObject = CustomResourceDefinition & CachedObject & { status?: { conditions?: ConditionState[] } };

export const nameOf = (object: CachedObject): string => object.metadata?.name ?? '';
export const namespaceOf = (object: CachedObject): string => object.metadata?.namespace ?? '';

export function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

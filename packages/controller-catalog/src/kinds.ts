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

/** The typed object of each kind in `Kinds` that @olm/api models. */
interface TypedObjects {
  catalogSource: CatalogSourceObject;
  subscription: SubscriptionObject;
  installPlan: InstallPlanObject;
  clusterServiceVersion: CsvObject;
  operatorGroup: OperatorGroupObject;
  customResourceDefinition: CrdObject;
}
export type TypedKind = keyof TypedObjects;

/**
 * The one place where a cached or listed object becomes its typed alias: what the cache or the API server
 * returns for `Kinds[kind]` is an object of that kind (its schema is the CRD's, enforced on every write).
 */
export function typed<K extends TypedKind>(_kind: K, object: CachedObject): TypedObjects[K];
export function typed<K extends TypedKind>(_kind: K, object: CachedObject | undefined): TypedObjects[K] | undefined;
export function typed<K extends TypedKind>(_kind: K, object: CachedObject | undefined): TypedObjects[K] | undefined {
  return object as TypedObjects[K] | undefined;
}

/** `typed` for a list. */
export function typedList<K extends TypedKind>(_kind: K, objects: readonly CachedObject[]): TypedObjects[K][] {
  return objects as TypedObjects[K][];
}

export const nameOf = (object: CachedObject): string => object.metadata?.name ?? '';
export const namespaceOf = (object: CachedObject): string => object.metadata?.namespace ?? '';

export function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

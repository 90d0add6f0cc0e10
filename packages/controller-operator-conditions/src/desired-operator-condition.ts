import { Labels, ownerReferenceTo, type OperatorCondition, type OwnerReference } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { Kinds } from './kinds.js';

/** The parts of a ClusterServiceVersion the generator reads; everything optional, as a cluster may hold anything. */
export interface CsvForOperatorCondition extends CachedObject {
  metadata?: CachedObject['metadata'] & { deletionTimestamp?: string | null };
  spec?: {
    install?: {
      spec?: {
        deployments?: Array<{ name?: string }>;
        permissions?: Array<{ serviceAccountName?: string }>;
        clusterPermissions?: Array<{ serviceAccountName?: string }>;
      };
    };
  };
}

/** An OperatorCondition as the API types describe it and the runtime caches it. */
export type OperatorConditionObject = OperatorCondition & CachedObject & { metadata: { name?: string; namespace?: string } };

/** A copy of a CSV in a target namespace (`olm.copiedFrom`) gets no OperatorCondition, as upstream. */
export function isCopiedCsv(csv: CachedObject): boolean {
  return csv.metadata?.labels?.[Labels.copiedFrom] !== undefined;
}

/**
 * The ServiceAccounts the operator runs as: those of `clusterPermissions`, then of `permissions`,
 * each once; `default` when the CSV names none (its deployments then run as `default`).
 */
export function operatorServiceAccounts(csv: CsvForOperatorCondition): string[] {
  const strategy = csv.spec?.install?.spec;
  const names = [...(strategy?.clusterPermissions ?? []), ...(strategy?.permissions ?? [])].map((entry) => entry?.serviceAccountName ?? '');
  const distinct = [...new Set(names.filter((name) => typeof name === 'string' && name !== ''))];
  return distinct.length > 0 ? distinct : ['default'];
}

/** The names of the Deployments of the CSV's install strategy. */
export function operatorDeployments(csv: CsvForOperatorCondition): string[] {
  return (csv.spec?.install?.spec?.deployments ?? []).map((entry) => entry?.name ?? '').filter((name) => typeof name === 'string' && name !== '');
}

/** The owner reference an OperatorCondition carries to its CSV: not a controller, blocking the CSV's foreground deletion, as upstream. */
export function csvOwnerReference(csv: CsvForOperatorCondition): OwnerReference {
  return ownerReferenceTo(Kinds.clusterServiceVersion, csv, { controller: false, blockOwnerDeletion: true });
}

/** The OperatorCondition OLM keeps for a CSV: same name and namespace, owned by it, naming its deployments and service accounts. */
export function desiredOperatorCondition(csv: CsvForOperatorCondition): OperatorConditionObject {
  return {
    apiVersion: 'operators.coreos.com/v2',
    kind: 'OperatorCondition',
    metadata: {
      name: csv.metadata?.name ?? '',
      namespace: csv.metadata?.namespace ?? '',
      ownerReferences: [csvOwnerReference(csv)],
    },
    spec: { deployments: operatorDeployments(csv), serviceAccounts: operatorServiceAccounts(csv) },
  };
}

/**
 * The existing OperatorCondition brought to what the generator owns of it: its CSV owner reference
 * (an owner reference to another CSV of that name, from before it was recreated, is dropped; other
 * owners stay), `spec.deployments` and `spec.serviceAccounts`. Everything else (overrides, the
 * operator's conditions, status) is left alone. Returns undefined when nothing differs.
 */
export function reconciledOperatorCondition(existing: OperatorConditionObject, desired: OperatorConditionObject): OperatorConditionObject | undefined {
  const owner = desired.metadata.ownerReferences![0]!;
  const references = existing.metadata.ownerReferences ?? [];
  const others = references.filter((reference) => !(reference.kind === owner.kind && groupOf(reference.apiVersion) === groupOf(owner.apiVersion)));
  const current = references.find((reference) => reference.uid === owner.uid);
  const ownerCurrent =
    current !== undefined &&
    current.kind === owner.kind &&
    current.name === owner.name &&
    current.blockOwnerDeletion === owner.blockOwnerDeletion &&
    (current.controller ?? false) === owner.controller &&
    others.length === references.length - 1;
  const specCurrent =
    sameList(existing.spec?.deployments, desired.spec?.deployments) && sameList(existing.spec?.serviceAccounts, desired.spec?.serviceAccounts);
  if (ownerCurrent && specCurrent) return undefined;
  return {
    ...existing,
    metadata: { ...existing.metadata, ownerReferences: [...others, owner] },
    spec: { ...existing.spec, deployments: desired.spec?.deployments ?? [], serviceAccounts: desired.spec?.serviceAccounts ?? [] },
  };
}

function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
}

function sameList(left: readonly string[] | undefined, right: readonly string[] | undefined): boolean {
  const a = left ?? [];
  const b = right ?? [];
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

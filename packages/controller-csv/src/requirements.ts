import type { ClusterServiceVersion, RequirementStatus } from '@olm/api';
import { RequirementMessages, RequirementStatusReasons } from '@olm/api';
import type { CachedObject, ObjectReader } from '@olm/core';
import { Kinds } from './kinds.js';

export interface RequirementsResult {
  readonly met: boolean;
  readonly statuses: RequirementStatus[];
}

interface CrdObject extends CachedObject {
  spec?: { versions?: Array<{ name?: string; served?: boolean }> };
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

/** `1.32.4-gke.1` → [1, 32, 4]: the `-suffix` is dropped as upstream does. */
export function parseKubeVersion(version: string): number[] | undefined {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version.trim().split('-')[0] ?? '');
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

function greaterThan(a: number[], b: number[]): boolean {
  for (let index = 0; index < 3; index += 1) {
    const left = a[index] ?? 0;
    const right = b[index] ?? 0;
    if (left !== right) return left > right;
  }
  return false;
}

/** The minKubeVersion requirement (none when the CSV sets none). */
export function minKubeVersionStatus(csv: ClusterServiceVersion, serverVersion: string | undefined): RequirementStatus[] {
  const min = csv.spec.minKubeVersion;
  if (!min) return [];
  const status = {
    group: 'operators.coreos.com',
    version: 'v1alpha1',
    kind: 'ClusterServiceVersion',
    name: csv.metadata.name ?? '',
  };
  const wanted = parseKubeVersion(min);
  const server = serverVersion === undefined ? undefined : parseKubeVersion(serverVersion);
  if (!wanted || !server) {
    return [{ ...status, status: RequirementStatusReasons.NotPresent, message: `CSV version parsing error: ${min}` }];
  }
  if (greaterThan(wanted, server)) {
    return [{ ...status, status: RequirementStatusReasons.NotPresent, message: RequirementMessages.minKubeVersionNotMet(min, serverVersion!) }];
  }
  return [{ ...status, status: RequirementStatusReasons.Present, message: `CSV minKubeVersion (${min}) less than server version (${serverVersion})` }];
}

/** Owned and required CRDs: present, serving the version, Established and NamesAccepted. */
export function crdStatuses(csv: ClusterServiceVersion, cache: ObjectReader): RequirementStatus[] {
  const descriptions = [
    ...(csv.spec.customresourcedefinitions?.owned ?? []),
    ...(csv.spec.customresourcedefinitions?.required ?? []),
  ];
  return descriptions.map((description) => {
    const base = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', name: description.name };
    const crd = cache.get(Kinds.crd, description.name) as CrdObject | undefined;
    if (!crd) return { ...base, status: RequirementStatusReasons.NotPresent, message: RequirementMessages.crdNotPresent };
    const uuid = crd.metadata?.uid;
    const served = (crd.spec?.versions ?? []).some((version) => version.name === description.version && version.served);
    if (!served) {
      return { ...base, status: RequirementStatusReasons.NotPresent, message: RequirementMessages.crdVersionNotServed, ...(uuid ? { uuid } : {}) };
    }
    const conditionTrue = (type: string) => (crd.status?.conditions ?? []).some((condition) => condition.type === type && condition.status === 'True');
    if (conditionTrue('Established') && conditionTrue('NamesAccepted')) {
      return { ...base, status: RequirementStatusReasons.Present, message: RequirementMessages.crdPresent, ...(uuid ? { uuid } : {}) };
    }
    return {
      ...base,
      status: RequirementStatusReasons.NotAvailable,
      message: 'CRD is present but the Established condition is False (not available)',
      ...(uuid ? { uuid } : {}),
    };
  });
}

/** Every service account named by the install strategy's permissions must exist in the CSV namespace. */
export function serviceAccountStatuses(csv: ClusterServiceVersion, cache: ObjectReader): RequirementStatus[] {
  const strategy = csv.spec.install.spec;
  const names = [
    ...new Set([...(strategy?.permissions ?? []), ...(strategy?.clusterPermissions ?? [])].map((permission) => permission.serviceAccountName)),
  ];
  return names.map((name) => {
    const base = { group: '', version: 'v1', kind: 'ServiceAccount', name };
    const account = cache.get(Kinds.serviceAccount, name, csv.metadata.namespace);
    if (!account) return { ...base, status: RequirementStatusReasons.NotPresent, message: RequirementMessages.serviceAccountMissing };
    const uuid = account.metadata?.uid;
    return { ...base, status: RequirementStatusReasons.Present, message: '', ...(uuid ? { uuid } : {}) };
  });
}

/** All requirement statuses, in upstream's order: minKubeVersion, CRDs, then service accounts. */
export function checkRequirements(csv: ClusterServiceVersion, cache: ObjectReader, serverVersion: string | undefined): RequirementsResult {
  const statuses = [...minKubeVersionStatus(csv, serverVersion), ...crdStatuses(csv, cache), ...serviceAccountStatuses(csv, cache)];
  return { met: statuses.every((status) => status.status === RequirementStatusReasons.Present), statuses };
}

import type { ClusterServiceVersion, DependentStatus, RequirementStatus } from '@olm/api';
import { APIServiceRequirementStatuses, DependentStatusReasons, RequirementMessages, RequirementStatusReasons } from '@olm/api';
import type { CachedObject, ObjectReader, PolicyRule } from '@olm/core';
import { Kinds } from '../kinds.js';
import { policyRuleJson, ruleSatisfied, type RbacView } from './rule-checker.js';

export interface RequirementsResult {
  readonly met: boolean;
  readonly statuses: RequirementStatus[];
}

/** What the requirement checks read besides the CSV. */
export interface RequirementInputs {
  /** The informer cache: CRDs, ServiceAccounts, Roles, ClusterRoles and their bindings. */
  readonly cache: ObjectReader;
  /** The API server's `gitVersion` (`/version`); undefined when it could not be read. */
  readonly serverVersion: string | undefined;
  /** The kinds discovery lists for a group/version (`v1`, `apps/v1`), or undefined when it is not served. */
  readonly servedKinds?: (groupVersion: string) => ReadonlySet<string> | undefined;
  /** An APIService by name (`<version>.<group>`). */
  readonly apiService?: (name: string) => ApiServiceObject | undefined;
}

export interface ApiServiceObject extends CachedObject {
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

/** `v1.32.4-gke.1` → [1, 32, 4]: the `v`, `-suffix` and `+build` are dropped as upstream does (minor and patch may be left out). */
export function parseKubeVersion(version: string): number[] | undefined {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\+.*)?$/.exec(version.trim().split('-')[0] ?? '');
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

/** The minKubeVersion requirement (none when the CSV sets none), with upstream's statuses and messages. */
export function minKubeVersionStatus(csv: ClusterServiceVersion, serverVersion: string | undefined): RequirementStatus[] {
  const min = csv.spec.minKubeVersion;
  if (!min) return [];
  const status = { group: 'operators.coreos.com', version: 'v1alpha1', kind: 'ClusterServiceVersion', name: csv.metadata.name ?? '' };
  const unsatisfied = (message: string): RequirementStatus[] => [{ ...status, status: RequirementStatusReasons.PresentNotSatisfied, message }];
  if (serverVersion === undefined) return unsatisfied('Server version discovery error');
  const server = parseKubeVersion(serverVersion);
  if (!server) return unsatisfied('Server version parsing error');
  const wanted = parseKubeVersion(min);
  if (!wanted) return unsatisfied('CSV version parsing error');
  // Upstream prints the server version it compared with: without the `v` and the `-suffix`.
  if (greaterThan(wanted, server)) return unsatisfied(RequirementMessages.minKubeVersionNotMet(min, server.join('.')));
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
    const crd = cache.get(Kinds.customResourceDefinition, description.name);
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

const groupVersion = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);
const isServed = (inputs: RequirementInputs, group: string, version: string, kind: string) =>
  inputs.servedKinds?.(groupVersion(group, version))?.has(kind) === true;

/**
 * Required APIServices: the kind is in discovery and the APIService `<version>.<group>` exists and is
 * Available. Upstream writes no message for these.
 */
export function requiredApiServiceStatuses(csv: ClusterServiceVersion, inputs: RequirementInputs): RequirementStatus[] {
  return (csv.spec.apiservicedefinitions?.required ?? []).map((description) => {
    const name = `${description.version}.${description.group}`;
    const base = { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', name, message: '' };
    const notPresent = { ...base, status: RequirementStatusReasons.NotPresent };
    if (!isServed(inputs, description.group, description.version, description.kind)) return notPresent;
    const apiService = inputs.apiService?.(name);
    if (!apiService) return notPresent;
    const available = (apiService.status?.conditions ?? []).some((condition) => condition.type === 'Available' && condition.status === 'True');
    if (!available) return notPresent;
    const uuid = apiService.metadata?.uid;
    return { ...base, status: RequirementStatusReasons.Present, ...(uuid ? { uuid } : {}) };
  });
}

/** Owned APIServices: the deployment serving each must be one of the install strategy's deployments. */
export function ownedApiServiceStatuses(csv: ClusterServiceVersion): RequirementStatus[] {
  const deployments = new Set(strategyDeploymentNames(csv));
  return (csv.spec.apiservicedefinitions?.owned ?? []).map((description) => ({
    group: 'apiregistration.k8s.io',
    version: 'v1',
    kind: 'APIService',
    name: `${description.version}.${description.group}`,
    message: '',
    status: deployments.has(description.deploymentName ?? '')
      ? APIServiceRequirementStatuses.DeploymentFound
      : APIServiceRequirementStatuses.DeploymentNotFound,
  }));
}

/** `spec.nativeAPIs`: each kind must be in discovery. */
export function nativeApiStatuses(csv: ClusterServiceVersion, inputs: RequirementInputs): RequirementStatus[] {
  return (csv.spec.nativeAPIs ?? []).map((api) => {
    const base = { group: api.group, version: api.version, kind: api.kind, name: `${api.version}.${api.group}` };
    return isServed(inputs, api.group, api.version, api.kind)
      ? { ...base, status: RequirementStatusReasons.Present, message: 'Native API exists' }
      : { ...base, status: RequirementStatusReasons.NotPresent, message: 'Native API does not exist' };
  });
}

/** The names of the deployment strategy's deployments (none for another strategy or a malformed one). */
export function strategyDeploymentNames(csv: ClusterServiceVersion): string[] {
  const deployments = (csv.spec.install?.spec as { deployments?: unknown } | undefined)?.deployments;
  if (!Array.isArray(deployments)) return [];
  return deployments.map((entry) => (entry as { name?: unknown })?.name).filter((name): name is string => typeof name === 'string');
}

function rbacView(cache: ObjectReader): RbacView {
  return {
    role: (namespace, name) => cache.get(Kinds.role, name, namespace),
    clusterRole: (name) => cache.get(Kinds.clusterRole, name),
    roleBindings: (namespace) => cache.list(Kinds.roleBinding, { namespace }),
    clusterRoleBindings: () => cache.list(Kinds.clusterRoleBinding),
  };
}

interface Permission {
  readonly serviceAccountName: string;
  readonly rules?: readonly PolicyRule[];
}

/**
 * One status per service account of `permissions` and `clusterPermissions` (first appearance order):
 * the account must exist, must not be owned by another CSV, and every rule must be granted to it by RBAC
 * (namespaced rules in the CSV namespace, cluster rules cluster-wide); each rule is a dependent. Throws
 * `OLM_CSV_INVALID_RULE` for a rule upstream rejects.
 */
export function permissionStatuses(csv: ClusterServiceVersion & { metadata: { name?: string; namespace?: string; uid?: string } }, cache: ObjectReader): RequirementStatus[] {
  const namespace = csv.metadata.namespace ?? '';
  const strategy = csv.spec.install?.spec as { permissions?: Permission[]; clusterPermissions?: Permission[] } | undefined;
  const view = rbacView(cache);
  const owner = { name: csv.metadata.name ?? '', ...(csv.metadata.uid ? { uid: csv.metadata.uid } : {}) };
  const statuses = new Map<string, RequirementStatus & { dependents: DependentStatus[] }>();
  const check = (permissions: readonly Permission[] | undefined, scope: 'namespaced' | 'cluster') => {
    for (const permission of permissions ?? []) {
      const name = permission.serviceAccountName;
      const status = statuses.get(name) ?? {
        group: '',
        version: 'v1',
        kind: 'ServiceAccount',
        name,
        status: RequirementStatusReasons.Present,
        message: '',
        dependents: [],
      };
      statuses.set(name, status);
      const account = cache.get(Kinds.serviceAccount, name, namespace);
      if (!account) {
        Object.assign(status, { status: RequirementStatusReasons.NotPresent, message: RequirementMessages.serviceAccountMissing });
        continue;
      }
      if (account.metadata?.uid) status.uuid = account.metadata.uid;
      const csvOwners = (account.metadata?.ownerReferences ?? []).filter((reference) => reference.kind === 'ClusterServiceVersion');
      if (csvOwners.length > 0 && !csvOwners.some((reference) => reference.uid === csv.metadata.uid)) {
        Object.assign(status, { status: RequirementStatusReasons.PresentNotSatisfied, message: 'Service account is owned by another ClusterServiceVersion' });
        continue;
      }
      for (const rule of permission.rules ?? []) {
        const satisfied = ruleSatisfied(view, owner, { namespace, name }, scope === 'cluster' ? '' : namespace, rule);
        status.dependents.push({
          group: 'rbac.authorization.k8s.io',
          version: 'v1',
          kind: 'PolicyRule',
          status: satisfied ? DependentStatusReasons.Satisfied : DependentStatusReasons.NotSatisfied,
          message: RequirementMessages.rule(scope, policyRuleJson(rule)),
        });
        if (!satisfied && status.status !== RequirementStatusReasons.NotPresent) {
          Object.assign(status, { status: RequirementStatusReasons.PresentNotSatisfied, message: RequirementMessages.policyRuleNotSatisfied });
        }
      }
    }
  };
  check(strategy?.permissions, 'namespaced');
  check(strategy?.clusterPermissions, 'cluster');
  // As upstream's `omitempty`: no dependents, no field.
  return [...statuses.values()].map(({ dependents, ...status }) => (dependents.length > 0 ? { ...status, dependents } : status));
}

const satisfiedStatuses: readonly string[] = [RequirementStatusReasons.Present, APIServiceRequirementStatuses.DeploymentFound];

/**
 * All requirement statuses in upstream's order: minKubeVersion, CRDs, required APIServices, owned
 * APIServices, native APIs, then the service accounts and their permissions. Throws
 * `OLM_CSV_INVALID_RULE` when a permission rule is invalid (upstream: an invalid install strategy).
 */
export function checkRequirements(csv: ClusterServiceVersion, inputs: RequirementInputs): RequirementsResult {
  const statuses = [
    ...minKubeVersionStatus(csv, inputs.serverVersion),
    ...crdStatuses(csv, inputs.cache),
    ...requiredApiServiceStatuses(csv, inputs),
    ...ownedApiServiceStatuses(csv),
    ...nativeApiStatuses(csv, inputs),
    ...permissionStatuses(csv, inputs.cache),
  ];
  return { met: statuses.every((status) => satisfiedStatuses.includes(status.status)), statuses };
}

/** The group/versions whose discovery the CSV's required APIServices and native APIs need. */
export function discoveryNeeded(csv: ClusterServiceVersion): string[] {
  const needed = [
    ...(csv.spec.apiservicedefinitions?.required ?? []).map((description) => groupVersion(description.group, description.version)),
    ...(csv.spec.nativeAPIs ?? []).map((api) => groupVersion(api.group, api.version)),
  ];
  return [...new Set(needed)];
}

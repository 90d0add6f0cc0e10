/**
 * Per provided API ClusterRoles, created when a CSV succeeds (upstream `ensureClusterRolesForCSV`):
 * `<name>-<version>-admin|edit|view` for each owned CRD and APIService, plus `<crd>-<version>-crdview`.
 * They aggregate into Kubernetes' admin/edit/view roles and into the OperatorGroup's ClusterRoles.
 */
import type { KubeObject, OwnerReference, PolicyRule } from '@olm/core';
import { isRecord, readClusterIdentity, readSpec } from './csv-input.js';
import { RbacErrorCodes, rbacError } from './errors.js';
import {
  ApiServiceApiVersion,
  ApiServiceKind,
  CrdApiVersion,
  CrdKind,
  KubeRbacAggregationKeyPrefix,
  ManagedLabelKey,
  ManagedLabelValue,
  RbacApiVersion,
  nonBlockingOwnerReferences,
  type Labels,
} from './labels.js';
import { aggregationLabelKey, type ApiKey } from './provided-apis.js';

/** Verbs granted on a provided API by each level. */
export const verbsForSuffix = {
  admin: ['*'],
  edit: ['create', 'update', 'patch', 'delete'],
  view: ['get', 'list', 'watch'],
} as const satisfies Record<string, readonly string[]>;

export interface ProvidedApiClusterRoleObject extends KubeObject {
  readonly apiVersion: typeof RbacApiVersion;
  readonly kind: 'ClusterRole';
  readonly metadata: { readonly name: string; readonly labels: Labels; readonly ownerReferences?: readonly OwnerReference[] };
  readonly rules: readonly PolicyRule[];
}

interface ProvidedApi {
  /** `<name>-<version>-`, the prefix of the role names. */
  readonly namePrefix: string;
  readonly key: ApiKey;
  readonly group: string;
  readonly resource: string;
  readonly ownerReferences: readonly OwnerReference[];
  /** For CRDs: the CRD name, to grant `get` on it (`-crdview`). */
  readonly crdName?: string;
}

function providedApiClusterRole(api: ProvidedApi, nameSuffix: string, level: keyof typeof verbsForSuffix, rule: PolicyRule): ProvidedApiClusterRoleObject {
  const metadata = {
    name: `${api.namePrefix}${nameSuffix}`,
    labels: {
      // Matches the aggregation rules of Kubernetes' bootstrap admin/edit/view ClusterRoles.
      [`${KubeRbacAggregationKeyPrefix}${level}`]: 'true',
      [aggregationLabelKey(api.key, level)]: 'true',
      [ManagedLabelKey]: ManagedLabelValue,
    },
  };
  return {
    apiVersion: RbacApiVersion,
    kind: 'ClusterRole',
    metadata: api.ownerReferences.length > 0 ? { ...metadata, ownerReferences: api.ownerReferences } : metadata,
    rules: [rule],
  };
}

function rolesFor(api: ProvidedApi): ProvidedApiClusterRoleObject[] {
  const levels = Object.keys(verbsForSuffix) as (keyof typeof verbsForSuffix)[];
  const roles = levels.map((level) =>
    providedApiClusterRole(api, level, level, { verbs: [...verbsForSuffix[level]], apiGroups: [api.group], resources: [api.resource] }),
  );
  if (api.crdName !== undefined) {
    roles.push(
      providedApiClusterRole(api, 'crdview', 'view', {
        verbs: ['get'],
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: [api.crdName],
      }),
    );
  }
  return roles;
}

function ownedList(csv: KubeObject, field: 'customresourcedefinitions' | 'apiservicedefinitions'): Record<string, unknown>[] {
  const definitions = readSpec(csv)[field];
  if (!isRecord(definitions) || definitions.owned === undefined || definitions.owned === null) return [];
  if (!Array.isArray(definitions.owned)) {
    throw rbacError(RbacErrorCodes.invalidApi, `spec.${field}.owned of the CSV must be a list`, { field });
  }
  return definitions.owned.map((entry: unknown, index) => {
    if (!isRecord(entry)) throw rbacError(RbacErrorCodes.invalidApi, `spec.${field}.owned[${index}] is not an object`, { field, index });
    return entry;
  });
}

function requireString(entry: Record<string, unknown>, key: string, where: string): string {
  const value = entry[key];
  if (typeof value !== 'string' || value === '') {
    throw rbacError(RbacErrorCodes.invalidApi, `${where} has no ${key}`, { where, field: key });
  }
  return value;
}

function indexByName(objects: readonly KubeObject[], what: string): Map<string, { readonly name: string; readonly uid?: string }> {
  return new Map(objects.map((object) => {
    const identity = readClusterIdentity(object, what);
    return [identity.name, identity] as const;
  }));
}

/** The APIs a CSV owns, each resolved to its CRD or APIService object. */
function ownedApis(csv: KubeObject, crds: readonly KubeObject[], apiServices: readonly KubeObject[]): ProvidedApi[] {
  const apis: ProvidedApi[] = [];
  const crdsByName = indexByName(crds, 'CustomResourceDefinition');
  ownedList(csv, 'customresourcedefinitions').forEach((owned, index) => {
    const where = `spec.customresourcedefinitions.owned[${index}]`;
    const name = requireString(owned, 'name', where);
    const version = requireString(owned, 'version', where);
    const kind = requireString(owned, 'kind', where);
    const dot = name.indexOf('.');
    if (dot <= 0 || dot === name.length - 1) {
      throw rbacError(RbacErrorCodes.invalidApi, `${where}: invalid CRD name "${name}", expected <plural>.<group>`, { where, name });
    }
    const crd = crdsByName.get(name);
    if (crd === undefined) {
      throw rbacError(RbacErrorCodes.apiObjectNotFound, `crd "${name}" not found: pass the cluster's CustomResourceDefinition in "crds"`, { name });
    }
    const plural = name.slice(0, dot);
    const group = name.slice(dot + 1);
    apis.push({
      namePrefix: `${name}-${version}-`,
      key: { group, version, kind },
      group,
      resource: plural,
      ownerReferences: nonBlockingOwnerReferences(crd, CrdApiVersion, CrdKind),
      crdName: name,
    });
  });
  const apiServicesByName = indexByName(apiServices, 'APIService');
  ownedList(csv, 'apiservicedefinitions').forEach((owned, index) => {
    const where = `spec.apiservicedefinitions.owned[${index}]`;
    const group = requireString(owned, 'group', where);
    const version = requireString(owned, 'version', where);
    const kind = requireString(owned, 'kind', where);
    const plural = requireString(owned, 'name', where);
    const serviceName = `${version}.${group}`;
    const apiService = apiServicesByName.get(serviceName);
    if (apiService === undefined) {
      throw rbacError(RbacErrorCodes.apiObjectNotFound, `apiservice "${serviceName}" not found: pass the cluster's APIService in "apiServices"`, {
        name: serviceName,
      });
    }
    apis.push({
      namePrefix: `${plural}-${version}-`,
      key: { group, version, kind },
      group,
      resource: plural,
      ownerReferences: nonBlockingOwnerReferences(apiService, ApiServiceApiVersion, ApiServiceKind),
    });
  });
  return apis;
}

/**
 * The per-API ClusterRoles of every API the CSV owns, in CSV order (CRDs, then APIServices; per API:
 * admin, edit, view, then crdview). Each is owned (non-blocking) by its CRD or APIService; an API
 * listed twice yields its roles once.
 */
export function generateProvidedApiClusterRoles(input: {
  readonly csv: KubeObject;
  readonly crds?: readonly KubeObject[];
  readonly apiServices?: readonly KubeObject[];
}): ProvidedApiClusterRoleObject[] {
  readClusterIdentity(input.csv, 'ClusterServiceVersion');
  const seen = new Set<string>();
  return ownedApis(input.csv, input.crds ?? [], input.apiServices ?? [])
    .flatMap(rolesFor)
    .filter((role) => (seen.has(role.metadata.name) ? false : (seen.add(role.metadata.name), true)));
}

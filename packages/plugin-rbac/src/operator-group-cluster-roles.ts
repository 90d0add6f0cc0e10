/** The three ClusterRoles of an OperatorGroup (upstream `ensureOpGroupClusterRoles`). */
import type { KubeObject } from '@olm/core';
import { isRecord, readIdentity } from './csv-input.js';
import {
  ManagedLabelKey,
  ManagedLabelValue,
  OperatorGroupKind,
  OperatorGroupProvidedApisAnnotationKey,
  RbacApiVersion,
  ownerLabels,
  type Labels,
} from './labels.js';
import { operatorGroupClusterRoleName, operatorGroupRoleSuffixes } from './names.js';
import { aggregationLabelKey, parseProvidedApis } from './provided-apis.js';

export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
}

export interface AggregatedClusterRoleObject extends KubeObject {
  readonly apiVersion: typeof RbacApiVersion;
  readonly kind: 'ClusterRole';
  readonly metadata: { readonly name: string; readonly labels: Labels };
  /** Absent when the group provides no API (upstream's nil rule). */
  readonly aggregationRule?: { readonly clusterRoleSelectors: readonly LabelSelector[] };
}

/** The group's `olm.providedAPIs` annotation as a list (empty when absent). */
export function readProvidedApisAnnotation(operatorGroup: KubeObject): string[] {
  const annotations = operatorGroup.metadata.annotations;
  const value = isRecord(annotations) ? annotations[OperatorGroupProvidedApisAnnotationKey] : undefined;
  return typeof value === 'string' && value !== '' ? [value] : [];
}

/**
 * `olm.og.<group>.admin|edit|view-<hash>` ClusterRoles, owner-labelled by the group. Each aggregates,
 * per provided API, the per-API ClusterRoles of its level (one `matchLabels` selector per API, sorted by
 * label key). They carry no `rules`: Kubernetes' aggregation controller fills them, so applying must not
 * overwrite them.
 */
export function generateOperatorGroupClusterRoles(input: {
  readonly operatorGroup: KubeObject;
  readonly providedApis?: readonly string[];
}): AggregatedClusterRoleObject[] {
  const group = readIdentity(input.operatorGroup, 'OperatorGroup');
  const apis = parseProvidedApis(input.providedApis ?? readProvidedApisAnnotation(input.operatorGroup));
  const labels: Labels = { ...ownerLabels(group, OperatorGroupKind), [ManagedLabelKey]: ManagedLabelValue };
  return operatorGroupRoleSuffixes.map((suffix) => {
    const selectorKeys = [...new Set(apis.map((api) => aggregationLabelKey(api, suffix)))].sort();
    const role: AggregatedClusterRoleObject = {
      apiVersion: RbacApiVersion,
      kind: 'ClusterRole',
      metadata: { name: operatorGroupClusterRoleName(group.namespace, group.name, suffix), labels: { ...labels } },
    };
    if (selectorKeys.length === 0) return role;
    return { ...role, aggregationRule: { clusterRoleSelectors: selectorKeys.map((key) => ({ matchLabels: { [key]: 'true' } })) } };
  });
}

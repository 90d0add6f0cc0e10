import type { KubeObject } from '@olm/core';
import { OwnerNameLabel } from '@olm/bundle-render';
import type { KubeObjectReference as ObjectReference } from '@olm/core';

/** The API group of an apiVersion (`apps/v1` → `apps`, `v1` → `""`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * One object's identity across revisions: group, kind, namespace and name. The version is left out,
 * so an object a newer bundle ships in another version of its API is the same object, not a prune.
 */
export function objectKey(object: { apiVersion: string; kind: string; metadata: { name?: string; namespace?: string } }): string {
  return `${groupOf(object.apiVersion)}/${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

export function referenceTo(object: KubeObject): ObjectReference {
  const { apiVersion, kind } = object;
  const name = object.metadata.name ?? '';
  return object.metadata.namespace ? { apiVersion, kind, name, namespace: object.metadata.namespace } : { apiVersion, kind, name };
}

/** `Deployment acme-system/acme-operator`, `CustomResourceDefinition databases.acme.io`: for messages. */
export function describeObject(object: { kind: string; metadata: { name?: string; namespace?: string } }): string {
  const { namespace, name } = object.metadata;
  return `${object.kind} ${namespace ? `${namespace}/` : ''}${name ?? ''}`;
}

/** The owner label of a live object: which ClusterExtension applied it, if any. */
export function ownerNameOf(object: KubeObject): string | undefined {
  const labels = object.metadata['labels'] as Record<string, string> | undefined;
  return labels?.[OwnerNameLabel];
}

/** At most three descriptions and how many more, so that a condition message stays short however large the bundle. */
export function listed(descriptions: readonly string[]): string {
  return descriptions.length <= 3 ? descriptions.join(', ') : `${descriptions.slice(0, 3).join(', ')} and ${descriptions.length - 3} more`;
}

import type { MissingPermission, RevisionApplier, RevisionOwner, ServiceAccountReference } from '@olm/revision-applier';

/**
 * What the reconciler needs from an applier: `@olm/revision-applier`'s methods, so a test or another
 * distribution can drive the reconciler with any object that has them.
 */
export type ExtensionApplier = Pick<RevisionApplier, 'preflight' | 'apply' | 'installed' | 'uninstall'>;
export type ExtensionOwner = RevisionOwner;
export type { MissingPermission, ServiceAccountReference };

/**
 * The permissions a ServiceAccount lacks, as upstream's pre-authorization message lists them: one line
 * per namespace, group, resource and name, with the verbs it needs there.
 */
export function formatMissingPermissions(missing: readonly MissingPermission[]): string {
  const lines = new Map<string, Set<string>>();
  for (const permission of missing) {
    const key = permission.nonResourceURL
      ? `NonResourceURLs:[${permission.nonResourceURL}]`
      : `Namespace:${JSON.stringify(permission.namespace ?? '')} APIGroups:[${permission.group}] Resources:[${permission.resource}]${permission.name ? ` ResourceNames:[${permission.name}]` : ''}`;
    const verbs = lines.get(key) ?? new Set<string>();
    verbs.add(permission.verb);
    lines.set(key, verbs);
  }
  const rules = [...lines].map(([key, verbs]) => `  ${key} Verbs:[${[...verbs].sort().join(',')}]`).sort();
  return `pre-authorization failed: service account requires the following permissions to manage cluster extension:\n${rules.join('\n')}`;
}

import type { RenderedBundle } from '@olm/bundle-render';

/**
 * What the controller needs from `@olm/revision-applier` (its `RevisionApplier`): the same shapes,
 * declared here so that the reconciler can be driven by any applier with this contract.
 */
export interface ExtensionApplier {
  preflight(input: { owner: ExtensionOwner; serviceAccount: ServiceAccountReference; rendered: RenderedBundle }): Promise<MissingPermission[]>;
  apply(input: {
    owner: ExtensionOwner;
    serviceAccount: ServiceAccountReference;
    bundle: { name: string; version: string; image?: string };
    rendered: RenderedBundle;
  }): Promise<{ revision: number; complete: boolean; message: string }>;
  installed(owner: ExtensionOwner): Promise<{ revision: number; bundle: { name: string; version: string } } | undefined>;
  uninstall(owner: ExtensionOwner): Promise<{ complete: boolean; message: string }>;
}

export interface ExtensionOwner {
  readonly name: string;
  readonly uid: string;
}

export interface ServiceAccountReference {
  readonly namespace: string;
  readonly name: string;
}

export interface MissingPermission {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
}

/**
 * The permissions a ServiceAccount lacks, as upstream's pre-authorization message lists them: one line
 * per namespace, group, resource and name, with the verbs it needs there.
 */
export function formatMissingPermissions(missing: readonly MissingPermission[]): string {
  const lines = new Map<string, Set<string>>();
  for (const permission of missing) {
    const key = `Namespace:${JSON.stringify(permission.namespace ?? '')} APIGroups:[${permission.group}] Resources:[${permission.resource}]${permission.name ? ` ResourceNames:[${permission.name}]` : ''}`;
    const verbs = lines.get(key) ?? new Set<string>();
    verbs.add(permission.verb);
    lines.set(key, verbs);
  }
  const rules = [...lines].map(([key, verbs]) => `  ${key} Verbs:[${[...verbs].sort().join(',')}]`).sort();
  return `pre-authorization failed: service account requires the following permissions to manage cluster extension:\n${rules.join('\n')}`;
}

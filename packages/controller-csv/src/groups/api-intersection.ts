import type { ApiKey } from '@olm/api';

/** An OperatorGroup as the intersection rules see it. */
export interface GroupApiView {
  readonly namespace: string;
  readonly name: string;
  /** `status.namespaces`; `[""]` means all namespaces. */
  readonly targetNamespaces: readonly string[];
  readonly providedApis: ReadonlySet<ApiKey>;
  readonly staticProvidedApis?: boolean;
}

export type ApiIntersectionResult = 'NoAPIConflict' | 'AddAPIs' | 'RemoveAPIs' | 'APIConflict';

const isAllNamespaces = (group: GroupApiView) => group.targetNamespaces.length === 1 && group.targetNamespaces[0] === '';

/** A group's namespaces for intersection: its targets plus its own namespace, or every namespace. */
function intersectionTargets(group: GroupApiView): Set<string> | 'all' {
  return isAllNamespaces(group) ? 'all' : new Set([...group.targetNamespaces, group.namespace]);
}

export function groupsIntersect(a: GroupApiView, b: GroupApiView): boolean {
  const targetsA = intersectionTargets(a);
  const targetsB = intersectionTargets(b);
  if (targetsA === 'all' || targetsB === 'all') return true;
  for (const namespace of targetsA) if (targetsB.has(namespace)) return true;
  return false;
}

/**
 * What a member CSV's sync must do about its group's provided APIs, given every other group:
 * conflicting with an intersecting group's APIs while not already owned → APIConflict; already
 * owned but also claimed by an intersecting group → RemoveAPIs; not yet owned → AddAPIs.
 */
export function reconcileApiIntersection(
  group: GroupApiView,
  otherGroups: readonly GroupApiView[],
  csvProvidedApis: ReadonlySet<ApiKey>,
): ApiIntersectionResult {
  const claimedElsewhere = new Set<ApiKey>();
  for (const other of otherGroups) {
    if (other.namespace === group.namespace && other.name === group.name) continue;
    if (!groupsIntersect(group, other)) continue;
    for (const api of other.providedApis) claimedElsewhere.add(api);
  }
  const intersecting = [...csvProvidedApis].some((api) => claimedElsewhere.has(api));
  const subset = [...csvProvidedApis].every((api) => group.providedApis.has(api));
  if (subset && intersecting) return 'RemoveAPIs';
  if (!subset && intersecting) return 'APIConflict';
  if (!subset) return 'AddAPIs';
  return 'NoAPIConflict';
}

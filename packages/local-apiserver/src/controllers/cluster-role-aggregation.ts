import { compareStrings } from '@olm/go-format';
import { labelSelectorAsSelector, LabelSelectorError, type Selector } from '@olm/label-selector';
import type { Cluster } from '../cluster.js';
import { deepEqual, isJsonObject, type KubeObject } from '../kube-object.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';

const clusterRoleResource = 'rbac.authorization.k8s.io/clusterroles';
/** The field manager kube-controller-manager's controller applies with. */
export const clusterRoleAggregationFieldManager = 'clusterrole-aggregation-controller';
/** The PolicyRule fields, in Go's order; anything else in a rule is not Kubernetes'. */
const policyRuleFields = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;
const maxBackoffMs = 1_000_000;

type PolicyRule = Partial<Record<(typeof policyRuleFields)[number], string[]>>;

/**
 * kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an `aggregationRule`
 * gets as `rules` those of every ClusterRole matched by any of its `clusterRoleSelectors` (itself
 * excluded): selector by selector, matched roles by name, their rules in order, each rule once.
 * They are written only when they differ (semantically: a rule's empty and absent lists are alike),
 * by server-side apply of `rules` alone with field manager `clusterrole-aggregation-controller` and
 * `force`, as kube does. Apply creates an absent object: a role deleted between kube's informer event
 * and its write comes back holding only `rules`. Any ClusterRole change re-examines every aggregating
 * role (kube does not track which roles select which either).
 */
export class ClusterRoleAggregation {
  private readonly queue: WorkQueue;
  private readonly failures = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly cluster: Cluster) {
    this.queue = new WorkQueue((name) => this.process(name));
  }

  start(): void {
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
    this.enqueueAggregatingRoles();
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource === clusterRoleResource) this.enqueueAggregatingRoles();
  }

  private enqueueAggregatingRoles(): void {
    for (const role of this.cluster.store.list(clusterRoleResource)) {
      if (hasAggregationRule(role)) this.queue.add(role.metadata.name ?? '');
    }
  }

  /** Failures retry with backoff (5 ms doubling up to ~17 min, as kube's controller queue), never in a tight loop. */
  private process(name: string): void {
    try {
      this.sync(name);
      this.failures.delete(name);
    } catch {
      const failures = (this.failures.get(name) ?? 0) + 1;
      this.failures.set(name, failures);
      this.queue.addAfter(name, Math.min(maxBackoffMs, 5 * 2 ** Math.min(failures - 1, 30)));
    }
  }

  private sync(name: string): void {
    const type = this.cluster.registry.get('rbac.authorization.k8s.io', 'clusterroles');
    const role = type && this.cluster.tryGet(type, undefined, name);
    if (!type || !role || !hasAggregationRule(role)) return;
    const rules = aggregatedRules(role, this.cluster.store.list(clusterRoleResource));
    // A selector kube-apiserver's validation would have refused: nothing to aggregate from it.
    if (!rules) return;
    if (sameRules(rules, policyRules(role['rules']))) return;
    const applied = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, ...(rules.length > 0 ? { rules } : {}) };
    this.cluster.patch(type, 'v1', undefined, name, 'apply', applied, { fieldManager: clusterRoleAggregationFieldManager, force: true });
  }
}

/** A non-null `aggregationRule` (even without selectors, which then aggregates nothing). */
function hasAggregationRule(role: KubeObject): boolean {
  return role['aggregationRule'] !== undefined && role['aggregationRule'] !== null;
}

/** The rules the role aggregates, or undefined when one of its selectors is invalid. */
function aggregatedRules(role: KubeObject, roles: readonly KubeObject[]): PolicyRule[] | undefined {
  const aggregationRule = role['aggregationRule'];
  const selectors = isJsonObject(aggregationRule) ? aggregationRule['clusterRoleSelectors'] : undefined;
  if (selectors !== undefined && selectors !== null && !Array.isArray(selectors)) return undefined;
  const rules: PolicyRule[] = [];
  for (const selector of (selectors ?? []) as unknown[]) {
    // A null list item decodes to the empty selector, which selects every role.
    const labelSelector = selectorOrUndefined(selector ?? {});
    if (labelSelector === undefined) return undefined;
    const matched = roles
      .filter((candidate) => candidate.metadata.name !== role.metadata.name && labelSelector.matches(candidate.metadata.labels))
      .sort((left, right) => compareStrings(left.metadata.name ?? '', right.metadata.name ?? ''));
    for (const source of matched) {
      for (const rule of policyRules(source['rules'])) if (!rules.some((known) => deepEqual(known, rule))) rules.push(rule);
    }
  }
  return rules;
}

/** A role's rules as Go decodes them: the five PolicyRule lists, empty ones left out (nil and empty are alike). */
function policyRules(value: unknown): PolicyRule[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => {
    const rule: PolicyRule = {};
    for (const field of policyRuleFields) {
      const list = isJsonObject(item) ? item[field] : undefined;
      if (Array.isArray(list) && list.length > 0) rule[field] = list.map(String);
    }
    return rule;
  });
}

function sameRules(left: readonly PolicyRule[], right: readonly PolicyRule[]): boolean {
  return left.length === right.length && left.every((rule, index) => deepEqual(rule, right[index]));
}

/** `metav1.LabelSelectorAsSelector`, or undefined for a selector it rejects. */
function selectorOrUndefined(selector: unknown): Selector | undefined {
  try {
    return labelSelectorAsSelector(selector);
  } catch (error) {
    if (error instanceof LabelSelectorError) return undefined;
    throw error;
  }
}

/**
 * Kubernetes meta types (metav1, rbacv1) the OLM contracts speak in. Their one home: `@olm/api`
 * re-exports them for its resource types, every other OLM package imports them from here.
 */

/** `metav1.GroupVersionKind`. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `metav1.OwnerReference`. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/** `rbacv1.PolicyRule`, as written in a Role or in a CSV's `permissions[].rules`. */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

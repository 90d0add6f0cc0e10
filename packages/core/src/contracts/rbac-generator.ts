import { createSingleExtensionPoint } from '../kernel/extension-point.js';
import type { PolicyRule } from './meta.js';

/** A Kubernetes object as plain data. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** The `roleRef` of a RoleBinding or ClusterRoleBinding. */
export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: string;
  readonly name: string;
}

/** One `subjects[]` entry of a RoleBinding or ClusterRoleBinding. */
export interface RbacSubject {
  readonly kind: string;
  readonly apiGroup?: string;
  readonly name: string;
  readonly namespace?: string;
}

/** What an RBAC object was made for: a CSV (its permissions and their copies) or an OperatorGroup (its ClusterRoles). */
export interface RbacOwner {
  readonly kind: 'ClusterServiceVersion' | 'OperatorGroup';
  readonly name: string;
  readonly namespace: string;
}

/**
 * How a generator marks whom its objects were made for (its own labels), so that the controllers
 * recognise its objects by asking it, not by assuming upstream's `olm.owner*` labels.
 */
export interface RbacOwnership {
  /** The label keys naming an object's owner: an existing object whose value of one differs from the desired object's is someone else's. */
  readonly labelKeys: readonly string[];
  /**
   * A label selector (`key=value,...`) matching the objects made for `owner`; with `copies`, the copies
   * of a CSV's objects in its target namespaces instead (upstream: `olm.copiedFrom`).
   */
  selector(owner: RbacOwner, options?: { readonly copies?: boolean }): string;
  /**
   * Whom an object's labels say it was made for, or undefined when they name nobody. For a copy,
   * `namespace` is the namespace of the copy's owner as labelled (the copied CSV's) and `copiedFrom` the
   * namespace of the CSV it was copied from.
   */
  ownerOf(labels: Readonly<Record<string, string>>): (RbacOwner & { readonly copiedFrom?: string }) | undefined;
}

/**
 * Generates every RBAC object OLM creates, so a platform team can swap the policy without touching
 * the controllers. Every method is pure and deterministic: inputs are upstream objects as plain data
 * (as read from the cluster or a bundle), outputs are the objects to apply, in apply order. Nothing
 * returned grants more than the CSV asks for, plus upstream's documented aggregation roles.
 *
 * Bad input throws an `OlmError` with an `OLM_RBAC_*` code (see `@olm/plugin-rbac`'s `RbacErrorCodes`).
 * Object names, labels and annotations are upstream OLM's, verbatim.
 */
export interface RbacGenerator {
  readonly name: string;

  /** How this generator's objects say whom they were made for (the controllers find and clean them up through it). */
  readonly ownership: RbacOwnership;

  /**
   * Catalog side (InstallPlan steps): for the CSV's `spec.install.spec.permissions[]` a Role + RoleBinding
   * in the CSV namespace, for `clusterPermissions[]` a ClusterRole + ClusterRoleBinding, and each service
   * account except `default`. Order: per service account (first appearance), its ServiceAccount, Roles,
   * RoleBindings, ClusterRoles, ClusterRoleBindings.
   */
  permissionsForCsv(input: { readonly csv: KubeObject }): KubeObject[];

  /**
   * OLM-operator side, once the CSV belongs to `operatorGroup` (its `status.namespaces` decides):
   * AllNamespaces (`[""]`) → the CSV's Roles/RoleBindings lifted to ClusterRoles/ClusterRoleBindings
   * (same names, plus `get,list,watch` on namespaces); other groups → Role/RoleBinding copies in each
   * target namespace except the operator namespace, labelled `olm.copiedFrom`, owned by the copied CSV
   * found in `copiedCsvs` (matched by name and namespace). Empty when the group has no status yet.
   * Upstream applies these only where the operator's permissions are not already met: filter by namespace.
   */
  permissionsForOperatorGroup(input: {
    readonly csv: KubeObject;
    readonly operatorGroup: KubeObject;
    readonly copiedCsvs?: readonly KubeObject[];
  }): KubeObject[];

  /**
   * The three OperatorGroup ClusterRoles (`admin`, `edit`, `view`), aggregating the per-API ClusterRoles
   * of `providedApis` (`Kind.version.group` strings; default: the group's `olm.providedAPIs` annotation).
   * They carry no `rules` (Kubernetes' aggregation controller fills them). Their names depend on the
   * group's namespace and name only, never on the APIs, and differ between groups: the OLM operator
   * recognises a group's roles by name when they lost their labels, and deletes them with the group.
   */
  operatorGroupClusterRoles(input: { readonly operatorGroup: KubeObject; readonly providedApis?: readonly string[] }): KubeObject[];

  /**
   * On CSV Succeeded: `<name>-<version>-admin|edit|view` ClusterRoles for every owned CRD and APIService,
   * plus `<crd>-<version>-crdview` per owned CRD. `crds`/`apiServices` are the cluster objects (their
   * UIDs become the owner references); a missing one is an error.
   */
  providedApiClusterRoles(input: {
    readonly csv: KubeObject;
    readonly crds?: readonly KubeObject[];
    readonly apiServices?: readonly KubeObject[];
  }): KubeObject[];

  /** The `olm.permissions.hash` label value of a Role/ClusterRole with these rules (for requirement checks). */
  policyRulesHash(rules: readonly PolicyRule[]): string;

  /** The `olm.permissions.hash` label value of a RoleBinding/ClusterRoleBinding (for requirement checks). */
  roleBindingHash(roleRef: RoleRef, subjects: readonly RbacSubject[]): string;
}

export const rbacGenerator = createSingleExtensionPoint<RbacGenerator>({
  id: 'olm.rbacGenerator',
  description: 'the generator of OLM RBAC objects',
  hint: 'boot an RBAC generator plugin such as @olm/plugin-rbac',
});

import { createSingleExtensionPoint } from '../kernel/extension-point.js';

/** A Kubernetes object as plain data. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/**
 * Generates every RBAC object OLM creates (CSV permissions, OperatorGroup and per-API ClusterRoles),
 * so a platform team can swap the policy without touching the controllers.
 * Inputs are the upstream objects as plain data; outputs are the objects to apply.
 */
export interface RbacGenerator {
  readonly name: string;
  permissionsForCsv(input: { readonly csv: KubeObject; readonly operatorGroup?: KubeObject }): KubeObject[];
  operatorGroupClusterRoles(input: { readonly operatorGroup: KubeObject; readonly providedApis: readonly string[] }): KubeObject[];
  ownedApiClusterRoles(input: { readonly csv: KubeObject; readonly crds: readonly KubeObject[]; readonly operatorGroup?: KubeObject }): KubeObject[];
}

export const rbacGenerator = createSingleExtensionPoint<RbacGenerator>({
  id: 'olm.rbacGenerator',
  description: 'the generator of OLM RBAC objects',
  hint: 'boot an RBAC generator plugin such as @olm/plugin-rbac',
});

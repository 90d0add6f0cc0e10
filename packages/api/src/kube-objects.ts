import type { PolicyRule, RbacSubject, RoleRef } from '@olm/core';
import type { LabelSelector } from '@olm/label-selector';
import type { CustomResourceDefinition } from './custom-resource-definition.js';
import type { ObjectMeta, Opaque } from './meta.js';

/*
 * The built-in Kubernetes kinds OLM reads, as read back from the API server: only the fields the
 * controllers look at, each optional where the server may leave it out (a cached object is input).
 * Everything else passes through untouched (the cache's objects keep every field).
 */

/** A condition of a built-in kind's status (`type`, `status` and, where set, the rest). */
export interface StatusCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
}

/** `v1` Namespace: a `Terminating` phase means it is being deleted. */
export interface Namespace {
  metadata?: ObjectMeta;
  status?: { phase?: 'Active' | 'Terminating' | (string & {}) };
}

/** `v1` ServiceAccount. */
export interface ServiceAccount {
  metadata?: ObjectMeta;
  secrets?: Array<{ name?: string }>;
  imagePullSecrets?: Array<{ name?: string }>;
}

/** `rbac.authorization.k8s.io/v1` Role or ClusterRole. */
export interface Role {
  metadata?: ObjectMeta;
  rules?: PolicyRule[] | null;
  /** ClusterRoles only. */
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] };
}

/** `rbac.authorization.k8s.io/v1` RoleBinding or ClusterRoleBinding. */
export interface RoleBinding {
  metadata?: ObjectMeta;
  roleRef?: Partial<RoleRef>;
  subjects?: Array<Partial<RbacSubject>> | null;
}

/** A pod template as a Deployment carries it (the pod spec passed through, but for its service account). */
export interface PodTemplate {
  metadata?: ObjectMeta;
  spec?: Opaque & { serviceAccountName?: string };
}

/** `apps/v1` Deployment. */
export interface Deployment {
  metadata?: ObjectMeta;
  spec?: Opaque & { replicas?: number; selector?: LabelSelector; template?: PodTemplate };
  status?: Opaque & { conditions?: StatusCondition[] };
}

/** `apiextensions.k8s.io/v1` CustomResourceDefinition as served: the manifest's fields, read defensively, and its status. */
export interface CustomResourceDefinitionObject {
  metadata?: ObjectMeta;
  spec?: Partial<CustomResourceDefinition['spec']> & {
    conversion?: { strategy?: string; webhook?: { clientConfig?: Opaque & { caBundle?: string } } & Opaque };
  };
  status?: { conditions?: StatusCondition[]; storedVersions?: string[]; acceptedNames?: Opaque };
}

/** `apiregistration.k8s.io/v1` APIService. */
export interface ApiService {
  metadata?: ObjectMeta;
  spec?: {
    group?: string;
    version?: string;
    service?: { namespace?: string; name?: string; port?: number } | null;
    caBundle?: string;
    groupPriorityMinimum?: number;
    versionPriority?: number;
    insecureSkipTLSVerify?: boolean;
  };
  status?: { conditions?: StatusCondition[] };
}

/** `admissionregistration.k8s.io/v1` Validating- or MutatingWebhookConfiguration. */
export interface WebhookConfiguration {
  metadata?: ObjectMeta;
  webhooks?: Array<Opaque & { name?: string; clientConfig?: Opaque & { caBundle?: string } }>;
}

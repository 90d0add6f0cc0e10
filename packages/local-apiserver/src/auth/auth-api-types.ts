import type { AdditionalSubresource, ResourceType } from '../resource-type.js';

/**
 * The create-only kinds of authentication.k8s.io/v1 and authorization.k8s.io/v1 (reviews), served by
 * the access-control layer rather than stored; registered so that discovery lists them as
 * kube-apiserver does (verbs `create` only), and `serviceaccounts/token` (TokenRequest).
 */
export const authenticationGroup = 'authentication.k8s.io';
export const authorizationGroup = 'authorization.k8s.io';

function reviewType(group: string, plural: string, kind: string, namespaced: boolean): ResourceType {
  return {
    group,
    versions: ['v1'],
    storageVersion: 'v1',
    plural,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    statusSubresource: false,
    tracksGeneration: false,
    strategicMerge: false,
    requiresResourceVersionOnUpdate: false,
  };
}

export function authApiTypes(): ResourceType[] {
  return [
    reviewType(authenticationGroup, 'tokenreviews', 'TokenReview', false),
    reviewType(authenticationGroup, 'selfsubjectreviews', 'SelfSubjectReview', false),
    reviewType(authorizationGroup, 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false),
    reviewType(authorizationGroup, 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', false),
    reviewType(authorizationGroup, 'subjectaccessreviews', 'SubjectAccessReview', false),
    reviewType(authorizationGroup, 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
  ];
}

/** `serviceaccounts/token`: POST a TokenRequest, get a bound ServiceAccount token (`kubectl create token`). */
export const tokenSubresource: AdditionalSubresource = { name: 'token', group: authenticationGroup, version: 'v1', kind: 'TokenRequest', verbs: ['create'] };

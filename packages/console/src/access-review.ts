import type { KubeClient } from '@olm/controller-runtime';
import type { Json } from './json.js';

const selfSubjectAccessReviewKind = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview' } as const;

export interface ResourceAttributes {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  readonly namespace?: string;
  readonly name?: string;
}

/**
 * Whether the user may do something, as `kubectl auth can-i` asks: a SelfSubjectAccessReview with the
 * user's own identity. Only decides what the page offers; the cluster still decides the write itself.
 */
export async function canI(client: KubeClient, attributes: ResourceAttributes): Promise<boolean> {
  const review = await client.create<Json>({ ...selfSubjectAccessReviewKind, metadata: {}, spec: { resourceAttributes: attributes } } as Json);
  return review.status?.allowed === true;
}

import { OlmError } from '@olm/core';
import { apiStatusCode } from '@olm/controller-runtime';
import { describe, expect, it } from 'vitest';
import { stepError } from './step-errors.js';

const forbidden = new OlmError('OLM_RUNTIME_KUBE_API', 'POST /apis/rbac.authorization.k8s.io/v1/clusterroles: 403 Forbidden …', {
  details: {
    statusCode: 403,
    reason: 'Forbidden',
    status: { kind: 'Status', message: 'clusterroles.rbac.authorization.k8s.io is forbidden: User "system:serviceaccount:ns:sa" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope' },
  },
});

describe('stepError', () => {
  it("words a refused step as upstream's step ensurer, with the API server's message, keeping the status code", () => {
    const error = stepError('create', 'ClusterRole', 'db.v1-abc', forbidden);
    expect(error.message).toBe(
      'error creating clusterrole db.v1-abc: clusterroles.rbac.authorization.k8s.io is forbidden: User "system:serviceaccount:ns:sa" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
    expect(apiStatusCode(error)).toBe(403);
  });

  it('uses each kind\'s upstream prefix', () => {
    const prefix = (action: 'create' | 'update' | 'get', kind: string) => stepError(action, kind, 'n', forbidden).message.split(':')[0];
    expect(prefix('create', 'ClusterServiceVersion')).toBe('error creating csv n');
    expect(prefix('create', 'Subscription')).toBe('error creating subscription n');
    expect(prefix('create', 'ServiceAccount')).toBe('error creating service account');
    expect(prefix('update', 'RoleBinding')).toBe('error updating rolebinding n');
    expect(prefix('create', 'Service')).toBe('error updating service');
    expect(prefix('create', 'BundleSecret')).toBe('error updating secret');
    expect(prefix('create', 'PrometheusRule')).toBe('error creating unstructured object n');
    expect(prefix('get', 'Role')).toBe('error getting unstructured object n');
  });

  it('keeps the text of an error that is not an API answer', () => {
    expect(stepError('create', 'Role', 'r', new Error('socket hang up')).message).toBe('error creating role r: socket hang up');
  });
});

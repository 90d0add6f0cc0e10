import { describe, expect, it } from 'vitest';
import { requestAttributes } from './request-info.js';

describe('request attributes (kube RequestInfo)', () => {
  it.each([
    ['GET', '/api/v1/namespaces/a/pods/p', { verb: 'get', apiGroup: '', resource: 'pods', namespace: 'a', name: 'p', subresource: '' }],
    ['HEAD', '/api/v1/namespaces/a/pods/p', { verb: 'get' }],
    ['GET', '/api/v1/namespaces/a/pods', { verb: 'list', name: '' }],
    ['GET', '/api/v1/pods?watch=true', { verb: 'watch', namespace: '' }],
    ['GET', '/api/v1/pods?watch=1&fieldSelector=metadata.name%3Dp', { verb: 'watch', name: 'p' }],
    ['GET', '/api/v1/pods?watch=false', { verb: 'list' }],
    ['GET', '/api/v1/namespaces/a/pods?fieldSelector=status.phase%3DRunning,metadata.name%3D%3Dp', { verb: 'list', name: 'p' }],
    ['POST', '/apis/apps/v1/namespaces/a/deployments', { verb: 'create', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', name: '' }],
    ['PUT', '/apis/apps/v1/namespaces/a/deployments/d/scale', { verb: 'update', subresource: 'scale', name: 'd' }],
    ['PATCH', '/apis/apps/v1/namespaces/a/deployments/d/status', { verb: 'patch', subresource: 'status' }],
    ['DELETE', '/api/v1/namespaces/a/configmaps/c', { verb: 'delete' }],
    ['DELETE', '/api/v1/namespaces/a/configmaps', { verb: 'deletecollection' }],
    // A namespace's path names its namespace too; so do its status and finalize subresources.
    ['GET', '/api/v1/namespaces/a', { resource: 'namespaces', name: 'a', namespace: 'a' }],
    ['PUT', '/api/v1/namespaces/a/finalize', { resource: 'namespaces', name: 'a', namespace: 'a', subresource: 'finalize', verb: 'update' }],
    ['POST', '/api/v1/namespaces', { resource: 'namespaces', name: '', namespace: '', verb: 'create' }],
    ['POST', '/api/v1/namespaces/a/serviceaccounts/robot/token', { verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'robot' }],
    ['GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aadmin', { name: 'system:admin', namespace: '' }],
  ])('%s %s', (method, url, expected) => {
    expect(requestAttributes(method, url)).toMatchObject({ isResourceRequest: true, ...expected });
  });

  it.each([
    ['GET', '/api', 'get'],
    ['GET', '/api/v1', 'get'],
    ['GET', '/apis/apps', 'get'],
    ['GET', '/apis/apps/v1', 'get'],
    ['GET', '/version', 'get'],
    ['POST', '/healthz', 'post'],
    ['GET', '/openapi/v3/apis/apps/v1', 'get'],
    ['GET', '/api/v1/%zz', 'get'],
  ])('%s %s is a non-resource request', (method, url, verb) => {
    expect(requestAttributes(method, url)).toMatchObject({ isResourceRequest: false, verb, path: url });
  });
});

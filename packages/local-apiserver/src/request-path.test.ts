import { describe, expect, it } from 'vitest';
import { parseRoute } from './request-path.js';

describe('parseRoute', () => {
  it.each([
    ['/version', { kind: 'version' }],
    ['/readyz', { kind: 'health', check: 'readyz' }],
    ['/api', { kind: 'api' }],
    ['/apis', { kind: 'apis' }],
    ['/apis/apps', { kind: 'group', group: 'apps' }],
    ['/api/v1', { kind: 'resourceList', group: '', version: 'v1' }],
    ['/apis/apps/v1/', { kind: 'resourceList', group: 'apps', version: 'v1' }],
    ['/api/v1/namespaces', { kind: 'resource', group: '', version: 'v1', plural: 'namespaces' }],
    ['/api/v1/namespaces/default', { kind: 'resource', group: '', version: 'v1', plural: 'namespaces', name: 'default' }],
    ['/api/v1/namespaces/default/status', { kind: 'resource', group: '', version: 'v1', plural: 'namespaces', name: 'default', subresource: 'status' }],
    ['/api/v1/namespaces/default/finalize', { kind: 'resource', group: '', version: 'v1', plural: 'namespaces', name: 'default', subresource: 'finalize' }],
    ['/api/v1/namespaces/default/configmaps', { kind: 'resource', group: '', version: 'v1', plural: 'configmaps', namespace: 'default' }],
    ['/apis/example.com/v1/namespaces/ns/widgets/w1/status', { kind: 'resource', group: 'example.com', version: 'v1', plural: 'widgets', namespace: 'ns', name: 'w1', subresource: 'status' }],
    ['/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aadmin', { kind: 'resource', group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', name: 'system:admin' }],
    ['/openapi/v3', { kind: 'openapiV3Index' }],
    ['/openapi/v3/apis/apps/v1', { kind: 'openapiV3', path: 'apis/apps/v1' }],
    ['/nothing', { kind: 'unknown' }],
    ['/api/v1/a/b/c/d', { kind: 'unknown' }],
  ])('%s', (path, expected) => {
    expect(parseRoute(path)).toEqual(expected);
  });
});

import { describe, expect, it } from 'vitest';
import { requestAttributes } from './request-attributes.js';

const group = 'packages.operators.coreos.com';

describe('requestAttributes', () => {
  it('resolves resource requests as kube\'s RequestInfo: list, watch, get, subresources, field-selected names', () => {
    expect(requestAttributes('GET', `/apis/${group}/v1/namespaces/ns/packagemanifests`)).toEqual({ resourceRequest: true, verb: 'list', group, version: 'v1', resource: 'packagemanifests', subresource: '', namespace: 'ns', name: '' });
    expect(requestAttributes('GET', `/apis/${group}/v1/packagemanifests?watch=1`)).toMatchObject({ verb: 'watch', namespace: '' });
    expect(requestAttributes('GET', `/apis/${group}/v1/namespaces/ns/packagemanifests?fieldSelector=metadata.name%3Dacme`)).toMatchObject({ verb: 'list', name: 'acme' });
    expect(requestAttributes('HEAD', `/apis/${group}/v1/namespaces/ns/packagemanifests/acme/icon`)).toMatchObject({ verb: 'get', name: 'acme', subresource: 'icon' });
    expect(requestAttributes('DELETE', `/apis/${group}/v1/namespaces/ns/packagemanifests`)).toMatchObject({ verb: 'deletecollection' });
    expect(requestAttributes('POST', `/apis/${group}/v1/namespaces/ns/packagemanifests`)).toMatchObject({ verb: 'create' });
  });

  it('treats discovery, OpenAPI and other paths as non-resource requests with the lower-cased method', () => {
    expect(requestAttributes('GET', `/apis/${group}/v1`)).toEqual({ resourceRequest: false, verb: 'get', path: `/apis/${group}/v1` });
    expect(requestAttributes('GET', '/openapi/v3?x=1')).toEqual({ resourceRequest: false, verb: 'get', path: '/openapi/v3' });
    expect(requestAttributes('POST', '/apis')).toEqual({ resourceRequest: false, verb: 'post', path: '/apis' });
  });
});

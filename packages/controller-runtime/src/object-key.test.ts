import { describe, expect, it } from 'vitest';
import { groupKind, objectKey, parseRequestKey, requestFor, requestKey } from './object-key.js';

describe('object keys', () => {
  it('round-trips namespaced and cluster-scoped requests', () => {
    expect(requestKey({ namespace: 'ns', name: 'a' })).toBe('ns/a');
    expect(requestKey({ name: 'crd' })).toBe('crd');
    expect(parseRequestKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(parseRequestKey('crd')).toEqual({ name: 'crd' });
    expect(objectKey({ metadata: { name: 'a', namespace: 'ns' } })).toBe('ns/a');
    expect(requestFor({ metadata: { name: 'x', namespace: '' } })).toEqual({ name: 'x' });
  });

  it('drops the version from group/kind', () => {
    expect(groupKind({ apiVersion: 'apps/v1', kind: 'Deployment' })).toBe('apps/Deployment');
    expect(groupKind({ apiVersion: 'v1', kind: 'ConfigMap' })).toBe('/ConfigMap');
  });
});

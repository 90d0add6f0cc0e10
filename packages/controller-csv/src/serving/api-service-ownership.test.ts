import { describe, expect, it } from 'vitest';
import { isApiServiceAdoptable } from './api-service-ownership.js';

const target = { name: 'mock.v2', namespace: 'operators' };
const replaced = { name: 'mock.v1', namespace: 'operators' };
const ownedBy = (name: string, namespace = 'operators', kind = 'ClusterServiceVersion') => ({ 'olm.owner': name, 'olm.owner.namespace': namespace, 'olm.owner.kind': kind });

describe('isApiServiceAdoptable', () => {
  it('adopts an APIService labelled for the CSV itself or the CSV it replaces', () => {
    expect(isApiServiceAdoptable(ownedBy('mock.v2'), target, replaced, false)).toBe(true);
    expect(isApiServiceAdoptable(ownedBy('mock.v1'), target, replaced, false)).toBe(true);
  });

  it('adopts one whose owner is being replaced or deleted', () => {
    expect(isApiServiceAdoptable(ownedBy('other.v1'), target, undefined, true)).toBe(true);
  });

  it('never adopts an unlabelled APIService, one owned by another kind, namespace or live CSV', () => {
    expect(isApiServiceAdoptable(undefined, target, replaced, false)).toBe(false);
    expect(isApiServiceAdoptable({}, target, replaced, true)).toBe(false);
    expect(isApiServiceAdoptable(ownedBy('mock.v2', 'operators', 'Deployment'), target, replaced, false)).toBe(false);
    expect(isApiServiceAdoptable(ownedBy('mock.v2', 'elsewhere'), target, replaced, false)).toBe(false);
    expect(isApiServiceAdoptable(ownedBy('other.v1'), target, replaced, false)).toBe(false);
  });
});

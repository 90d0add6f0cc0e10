import type { CachedObject } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { mapToOwner, setOwnerLabels, setOwnerReference } from './owner-mapper.js';

const csvKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' };
const csv = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'etcd.v1', namespace: 'operators', uid: 'uid-1' },
};

describe('mapToOwner', () => {
  it('maps ownerReferences of the owner group/kind, any version, in the dependent namespace', () => {
    const map = mapToOwner(csvKind);
    const deployment = {
      metadata: {
        name: 'etcd-operator',
        namespace: 'operators',
        ownerReferences: [
          { apiVersion: 'operators.coreos.com/v1alpha2', kind: 'ClusterServiceVersion', name: 'etcd.v1', uid: 'u' },
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'r' },
          { apiVersion: 'other.io/v1alpha1', kind: 'ClusterServiceVersion', name: 'impostor', uid: 'i' },
        ],
      },
    };
    expect(map(deployment)).toEqual([{ namespace: 'operators', name: 'etcd.v1' }]);
  });

  it('maps OLM owner labels across namespaces, and de-duplicates with ownerReferences', () => {
    const map = mapToOwner(csvKind);
    const labelled = setOwnerLabels<CachedObject>({ metadata: { name: 'role', namespace: 'elsewhere' } }, csv);
    expect(labelled.metadata!.labels).toEqual({
      'olm.owner': 'etcd.v1',
      'olm.owner.namespace': 'operators',
      'olm.owner.kind': 'ClusterServiceVersion',
    });
    expect(map(labelled)).toEqual([{ namespace: 'operators', name: 'etcd.v1' }]);
    const both = setOwnerReference(setOwnerLabels({ metadata: { name: 'x', namespace: 'operators' } }, csv), csv);
    expect(map(both)).toEqual([{ namespace: 'operators', name: 'etcd.v1' }]);
    expect(mapToOwner({ apiVersion: 'v1', kind: 'Namespace' })(labelled)).toEqual([]);
  });

  it('drops the namespace for a cluster-scoped owner and can follow only the controller reference', () => {
    const object = {
      metadata: {
        name: 'x',
        namespace: 'ns',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Namespace', name: 'a', uid: '1' },
          { apiVersion: 'v1', kind: 'Namespace', name: 'b', uid: '2', controller: true },
        ],
      },
    };
    expect(mapToOwner({ apiVersion: 'v1', kind: 'Namespace' }, { ownerNamespaced: false })(object)).toEqual([
      { name: 'a' },
      { name: 'b' },
    ]);
    expect(
      mapToOwner({ apiVersion: 'v1', kind: 'Namespace' }, { ownerNamespaced: false, controllerOnly: true })(object),
    ).toEqual([{ name: 'b' }]);
  });

  it('setOwnerReference replaces an existing reference to the same owner', () => {
    const object = setOwnerReference<CachedObject>({ metadata: { name: 'x' } }, csv, { controller: true });
    setOwnerReference(object, csv, { controller: true, blockOwnerDeletion: false });
    expect(object.metadata!.ownerReferences).toEqual([
      { ...csvKind, name: 'etcd.v1', uid: 'uid-1', controller: true, blockOwnerDeletion: false },
    ]);
  });
});

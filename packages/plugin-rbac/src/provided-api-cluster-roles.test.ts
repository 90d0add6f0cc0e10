import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { makeCsv } from '../test/support.js';
import { RbacErrorCodes } from './errors.js';
import { fnv64aHex } from './hash.js';
import { generateProvidedApiClusterRoles } from './provided-api-cluster-roles.js';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'etcdclusters.etcd.database.coreos.com', uid: 'crd-uid' },
};
const apiService = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.mock.example.com', uid: 'svc-uid' } };
const csv = makeCsv({
  spec: {
    customresourcedefinitions: { owned: [{ name: 'etcdclusters.etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' }] },
    apiservicedefinitions: { owned: [{ group: 'mock.example.com', version: 'v1alpha1', kind: 'MockResource', name: 'mockresources', deploymentName: 'mock' }] },
  },
});

function role(name: string, suffix: string, apiHash: string, owner: object, rule: object) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name,
      labels: {
        [`rbac.authorization.k8s.io/aggregate-to-${suffix}`]: 'true',
        [`olm.opgroup.permissions/aggregate-to-${apiHash}-${suffix}`]: 'true',
        'olm.managed': 'true',
      },
      ownerReferences: [{ ...owner, controller: false, blockOwnerDeletion: false }],
    },
    rules: [rule],
  };
}

describe('generateProvidedApiClusterRoles', () => {
  it('generates admin/edit/view/crdview for a CRD and admin/edit/view for an APIService', () => {
    const crdOwner = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd.metadata.name, uid: 'crd-uid' };
    const svcOwner = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1alpha1.mock.example.com', uid: 'svc-uid' };
    const etcd = fnv64aHex('EtcdCluster.v1beta2.etcd.database.coreos.com');
    const mock = fnv64aHex('MockResource.v1alpha1.mock.example.com');
    const prefix = 'etcdclusters.etcd.database.coreos.com-v1beta2-';
    const etcdRule = (verbs: string[]) => ({ verbs, apiGroups: ['etcd.database.coreos.com'], resources: ['etcdclusters'] });
    const mockRule = (verbs: string[]) => ({ verbs, apiGroups: ['mock.example.com'], resources: ['mockresources'] });
    expect(generateProvidedApiClusterRoles({ csv, crds: [crd], apiServices: [apiService] })).toEqual([
      role(`${prefix}admin`, 'admin', etcd, crdOwner, etcdRule(['*'])),
      role(`${prefix}edit`, 'edit', etcd, crdOwner, etcdRule(['create', 'update', 'patch', 'delete'])),
      role(`${prefix}view`, 'view', etcd, crdOwner, etcdRule(['get', 'list', 'watch'])),
      role(`${prefix}crdview`, 'view', etcd, crdOwner, {
        verbs: ['get'],
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['etcdclusters.etcd.database.coreos.com'],
      }),
      role('mockresources-v1alpha1-admin', 'admin', mock, svcOwner, mockRule(['*'])),
      role('mockresources-v1alpha1-edit', 'edit', mock, svcOwner, mockRule(['create', 'update', 'patch', 'delete'])),
      role('mockresources-v1alpha1-view', 'view', mock, svcOwner, mockRule(['get', 'list', 'watch'])),
    ]);
  });

  it('generates nothing for a CSV that owns no API', () => {
    expect(generateProvidedApiClusterRoles({ csv: makeCsv({}) })).toEqual([]);
  });

  it('fails clearly when the CRD or APIService was not passed, or an owned entry is malformed', () => {
    const codeOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return hasErrorCode(error) ? error.code : 'other';
      }
      return undefined;
    };
    expect(codeOf(() => generateProvidedApiClusterRoles({ csv, apiServices: [apiService] }))).toBe(RbacErrorCodes.apiObjectNotFound);
    expect(codeOf(() => generateProvidedApiClusterRoles({ csv, crds: [crd] }))).toBe(RbacErrorCodes.apiObjectNotFound);
    const badName = makeCsv({ spec: { customresourcedefinitions: { owned: [{ name: 'etcdclusters', version: 'v1', kind: 'EtcdCluster' }] } } });
    expect(codeOf(() => generateProvidedApiClusterRoles({ csv: badName, crds: [crd] }))).toBe(RbacErrorCodes.invalidApi);
    const noVersion = makeCsv({ spec: { customresourcedefinitions: { owned: [{ name: crd.metadata.name, kind: 'EtcdCluster' }] } } });
    expect(codeOf(() => generateProvidedApiClusterRoles({ csv: noVersion, crds: [crd] }))).toBe(RbacErrorCodes.invalidApi);
  });
});

import type { KubeObject } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { expectedBindingHash, expectedSha224Base62, makeCsv, makeOperatorGroup } from '../test/support.js';
import { generateCsvPermissions } from './csv-permissions.js';
import { generateOperatorGroupPermissions } from './operator-group-permissions.js';

const rules = [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'update'] }];
const rulesJson = '[{"verbs":["get","list","watch","update"],"apiGroups":["apps"],"resources":["deployments"]}]';
const csv = makeCsv({
  uid: 'csv-uid',
  permissions: [{ serviceAccountName: 'operator', rules }],
  clusterPermissions: [{ serviceAccountName: 'operator', rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] }],
});
const [, role, binding] = generateCsvPermissions(csv) as [KubeObject, KubeObject & { rules: unknown[] }, KubeObject];
const roleName = role.metadata.name!;
const ownerLabels = {
  'olm.owner': 'etcdoperator.v0.9.4',
  'olm.owner.namespace': 'operators',
  'olm.owner.kind': 'ClusterServiceVersion',
  'olm.managed': 'true',
};

describe('generateOperatorGroupPermissions', () => {
  it('lifts Roles and RoleBindings to cluster scope for an AllNamespaces group', () => {
    const objects = generateOperatorGroupPermissions({ csv, operatorGroup: makeOperatorGroup({ namespaces: [''] }) });
    expect(objects).toEqual([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: roleName, labels: { ...ownerLabels, 'olm.permissions.hash': expectedSha224Base62(rulesJson) } },
        rules: [
          { verbs: ['get', 'list', 'watch', 'update'], apiGroups: ['apps'], resources: ['deployments'] },
          { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: {
          name: roleName,
          labels: { ...ownerLabels, 'olm.permissions.hash': expectedBindingHash('ClusterRole', roleName, 'operator', 'operators') },
        },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
        subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: 'operators' }],
      },
    ]);
    // The source Role is untouched.
    expect(role.rules).toHaveLength(1);
  });

  it('adds nothing for an OwnNamespace group or before the group has a status', () => {
    expect(generateOperatorGroupPermissions({ csv, operatorGroup: makeOperatorGroup({ namespaces: ['operators'] }) })).toEqual([]);
    expect(generateOperatorGroupPermissions({ csv, operatorGroup: makeOperatorGroup({}) })).toEqual([]);
  });

  it('rejects bad permissions for an OwnNamespace group as for any other, though it copies nothing', () => {
    const bad = makeCsv({ permissions: [{ serviceAccountName: 'operator', rules: [{ apiGroups: [''], resources: ['pods'] }] }] });
    const code = (operatorGroup: KubeObject) => {
      try {
        generateOperatorGroupPermissions({ csv: bad, operatorGroup });
        return 'no error';
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    expect(code(makeOperatorGroup({ namespaces: ['operators'] }))).toBe('OLM_RBAC_INVALID_RULE');
    expect(code(makeOperatorGroup({ namespaces: ['other'] }))).toBe('OLM_RBAC_INVALID_RULE');
  });

  it('copies Roles and RoleBindings into a SingleNamespace target, owned by the copied CSV', () => {
    const copiedCsv = { ...makeCsv({ namespace: 'team-a', uid: 'copy-uid' }) };
    const objects = generateOperatorGroupPermissions({
      csv,
      operatorGroup: makeOperatorGroup({ namespaces: ['team-a'] }),
      copiedCsvs: [copiedCsv],
    });
    const copyOwner = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      name: 'etcdoperator.v0.9.4',
      uid: 'copy-uid',
      controller: false,
      blockOwnerDeletion: false,
    };
    const copiedLabels = { ...ownerLabels, 'olm.owner.namespace': 'team-a', 'olm.copiedFrom': 'operators' };
    expect(objects).toEqual([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: {
          name: roleName,
          namespace: 'team-a',
          labels: { ...copiedLabels, 'olm.permissions.hash': expectedSha224Base62(rulesJson) },
          ownerReferences: [copyOwner],
        },
        rules: [{ verbs: ['get', 'list', 'watch', 'update'], apiGroups: ['apps'], resources: ['deployments'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: {
          name: roleName,
          namespace: 'team-a',
          labels: { ...copiedLabels, 'olm.permissions.hash': expectedBindingHash('Role', roleName, 'operator', 'operators') },
          ownerReferences: [copyOwner],
        },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
        subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: 'operators' }],
      },
    ]);
    expect((binding.metadata as { namespace: string }).namespace).toBe('operators');
  });

  it('copies into every MultiNamespace target except the operator namespace, in sorted order', () => {
    const objects = generateOperatorGroupPermissions({
      csv,
      operatorGroup: makeOperatorGroup({ namespaces: ['team-b', 'operators', 'team-a', 'team-b'] }),
    });
    expect(objects.map((object) => `${object.kind}/${object.metadata.namespace}`)).toEqual([
      'Role/team-a',
      'RoleBinding/team-a',
      'Role/team-b',
      'RoleBinding/team-b',
    ]);
    // Without the copied CSV's UID: owner labels only.
    expect(objects.every((object) => !('ownerReferences' in object.metadata))).toBe(true);
    expect(objects[2]?.metadata).toMatchObject({ labels: { 'olm.owner.namespace': 'team-b', 'olm.copiedFrom': 'operators' } });
  });
});

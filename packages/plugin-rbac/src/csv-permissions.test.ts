import { describe, expect, it } from 'vitest';
import { expectedBindingHash, expectedGeneratedName, expectedSha224Base62, makeCsv } from '../test/support.js';
import { generateCsvPermissions } from './csv-permissions.js';

const etcdRules = [{ apiGroups: ['etcd.database.coreos.com'], resources: ['etcdclusters', 'etcdbackups'], verbs: ['*'] }];
const etcdRulesJson = '[{"verbs":["*"],"apiGroups":["etcd.database.coreos.com"],"resources":["etcdclusters","etcdbackups"]}]';
const nodeRules = [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }];
const nodeRulesJson = '[{"verbs":["get","list"],"apiGroups":[""],"resources":["nodes"]}]';

const csvOwner = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  name: 'etcdoperator.v0.9.4',
  uid: 'csv-uid',
  controller: false,
  blockOwnerDeletion: false,
};
const ownerLabels = {
  'olm.owner': 'etcdoperator.v0.9.4',
  'olm.owner.namespace': 'operators',
  'olm.owner.kind': 'ClusterServiceVersion',
  'olm.managed': 'true',
};

describe('generateCsvPermissions', () => {
  it('generates the exact ServiceAccount, Role, RoleBinding, ClusterRole and ClusterRoleBinding', () => {
    const csv = makeCsv({
      uid: 'csv-uid',
      permissions: [{ serviceAccountName: 'etcd-operator', rules: etcdRules }],
      clusterPermissions: [{ serviceAccountName: 'etcd-operator', rules: nodeRules }],
    });
    const roleName = expectedGeneratedName(
      'etcdoperator.v0.9.4-etcd-operator',
      `["etcdoperator.v0.9.4",{"serviceAccountName":"etcd-operator","rules":${etcdRulesJson}}]`,
    );
    const clusterRoleName = expectedGeneratedName(
      'etcdoperator.v0.9.4',
      `["etcdoperator.v0.9.4","operators",{"serviceAccountName":"etcd-operator","rules":${nodeRulesJson}}]`,
    );
    const subjects = [{ kind: 'ServiceAccount', name: 'etcd-operator', namespace: 'operators' }];
    expect(generateCsvPermissions(csv)).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'etcd-operator', namespace: 'operators', labels: { 'olm.managed': 'true' }, ownerReferences: [csvOwner] },
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: {
          name: roleName,
          namespace: 'operators',
          labels: { ...ownerLabels, 'olm.permissions.hash': expectedSha224Base62(etcdRulesJson) },
          ownerReferences: [csvOwner],
        },
        rules: [{ verbs: ['*'], apiGroups: ['etcd.database.coreos.com'], resources: ['etcdclusters', 'etcdbackups'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: {
          name: roleName,
          namespace: 'operators',
          labels: { ...ownerLabels, 'olm.permissions.hash': expectedBindingHash('Role', roleName, 'etcd-operator', 'operators') },
          ownerReferences: [csvOwner],
        },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
        subjects,
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: clusterRoleName, labels: { ...ownerLabels, 'olm.permissions.hash': expectedSha224Base62(nodeRulesJson) } },
        rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: {
          name: clusterRoleName,
          labels: { ...ownerLabels, 'olm.permissions.hash': expectedBindingHash('ClusterRole', clusterRoleName, 'etcd-operator', 'operators') },
        },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRoleName },
        subjects,
      },
    ]);
    expect(roleName).toHaveLength(63);
    expect(clusterRoleName.length).toBeLessThanOrEqual(63);
  });

  it('groups several service accounts in order of appearance and never creates `default`', () => {
    const csv = makeCsv({
      permissions: [
        { serviceAccountName: 'default', rules: nodeRules.map((rule) => ({ ...rule, resources: ['configmaps'] })) },
        { serviceAccountName: 'operator', rules: etcdRules },
        { serviceAccountName: 'default', rules: etcdRules },
      ],
      clusterPermissions: [{ serviceAccountName: 'webhook', rules: nodeRules }],
    });
    const objects = generateCsvPermissions(csv);
    expect(objects.map((object) => `${object.kind}:${(object.metadata.name ?? '').split('-')[0]}`)).toEqual([
      'Role:etcdoperator.v0.9.4',
      'Role:etcdoperator.v0.9.4',
      'RoleBinding:etcdoperator.v0.9.4',
      'RoleBinding:etcdoperator.v0.9.4',
      'ServiceAccount:operator',
      'Role:etcdoperator.v0.9.4',
      'RoleBinding:etcdoperator.v0.9.4',
      'ServiceAccount:webhook',
      'ClusterRole:etcdoperator.v0.9.4',
      'ClusterRoleBinding:etcdoperator.v0.9.4',
    ]);
    const bindings = objects.filter((object) => object.kind === 'RoleBinding') as unknown as { subjects: { name: string }[] }[];
    expect(bindings.map((binding) => binding.subjects[0]?.name)).toEqual(['default', 'default', 'operator']);
    // Without the CSV's UID (not created yet) there are no owner references; the executor adds them.
    expect(objects.every((object) => !('ownerReferences' in object.metadata))).toBe(true);
    // Names: unique, at most 63 characters.
    const names = objects.filter((object) => object.kind !== 'ServiceAccount').map((object) => `${object.kind}/${object.metadata.name}`);
    expect(new Set(names).size).toBe(names.length);
    expect(objects.every((object) => (object.metadata.name ?? '').length <= 63)).toBe(true);
  });

  it('names stably: same input, same names; different rules or namespace, different names', () => {
    const permissions = [{ serviceAccountName: 'sa', rules: etcdRules }];
    const first = generateCsvPermissions(makeCsv({ permissions, clusterPermissions: permissions }));
    const again = generateCsvPermissions(makeCsv({ permissions, clusterPermissions: permissions }));
    expect(again).toEqual(first);

    const changed = generateCsvPermissions(makeCsv({ permissions: [{ serviceAccountName: 'sa', rules: [{ ...etcdRules[0], verbs: ['get'] }] }] }));
    const roleOf = (objects: typeof first) => objects.find((object) => object.kind === 'Role')!;
    expect(roleOf(changed).metadata.name).not.toBe(roleOf(first).metadata.name);
    expect((roleOf(changed).metadata as { labels: Record<string, string> }).labels['olm.permissions.hash']).not.toBe(
      (roleOf(first).metadata as { labels: Record<string, string> }).labels['olm.permissions.hash'],
    );

    // The same CSV installed in another namespace: same Role names, distinct ClusterRole names.
    const elsewhere = generateCsvPermissions(makeCsv({ namespace: 'other', permissions, clusterPermissions: permissions }));
    expect(roleOf(elsewhere).metadata.name).toBe(roleOf(first).metadata.name);
    const clusterRoleOf = (objects: typeof first) => objects.find((object) => object.kind === 'ClusterRole')!.metadata.name;
    expect(clusterRoleOf(elsewhere)).not.toBe(clusterRoleOf(first));
  });

  it('yields an entry repeated verbatim once, and keeps an empty or absent rule list (granting nothing)', () => {
    const entry = { serviceAccountName: 'sa', rules: etcdRules };
    expect(generateCsvPermissions(makeCsv({ permissions: [entry, entry] })).map((object) => object.kind)).toEqual([
      'ServiceAccount',
      'Role',
      'RoleBinding',
    ]);
    const [, role] = generateCsvPermissions(makeCsv({ permissions: [{ serviceAccountName: 'sa' }] }));
    expect(role).toMatchObject({ kind: 'Role', rules: [], metadata: { labels: { 'olm.permissions.hash': expectedSha224Base62('null') } } });
    expect(generateCsvPermissions(makeCsv({ permissions: [] }))).toEqual([]);
  });

  it('keeps short names whole', () => {
    const csv = makeCsv({ name: 'a.v1', permissions: [{ serviceAccountName: 'b', rules: nodeRules }] });
    const role = generateCsvPermissions(csv).find((object) => object.kind === 'Role')!;
    expect(role.metadata.name).toBe(expectedGeneratedName('a.v1-b', `["a.v1",{"serviceAccountName":"b","rules":${nodeRulesJson}}]`));
    expect(role.metadata.name?.startsWith('a.v1-b-')).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { hasDesiredRules, hasDesiredSubjects, invalidServiceAccounts, operatorConditionRole, operatorConditionRoleBinding, withDesiredOwner } from './operator-condition-rbac.js';

const condition = { metadata: { name: 'db.v1', namespace: 'team', uid: 'oc-uid' }, spec: { serviceAccounts: ['db', 'db', 'db-cluster'] } };
const owner = { apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition', name: 'db.v1', uid: 'oc-uid', controller: false, blockOwnerDeletion: true };

describe('the RBAC of an OperatorCondition', () => {
  it('a Role of its name lets its holder get, update and patch that one OperatorCondition and its status', () => {
    expect(operatorConditionRole(condition)).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'db.v1', namespace: 'team', ownerReferences: [owner] },
      rules: [
        { verbs: ['get', 'update', 'patch'], apiGroups: ['operators.coreos.com'], resources: ['operatorconditions'], resourceNames: ['db.v1'] },
        { verbs: ['get', 'update', 'patch'], apiGroups: ['operators.coreos.com'], resources: ['operatorconditions/status'], resourceNames: ['db.v1'] },
      ],
    });
  });

  it('a RoleBinding of its name grants that Role to each of its service accounts', () => {
    expect(operatorConditionRoleBinding(condition)).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'db.v1', namespace: 'team', ownerReferences: [owner] },
      subjects: [
        { kind: 'ServiceAccount', name: 'db', namespace: 'team' },
        { kind: 'ServiceAccount', name: 'db-cluster', namespace: 'team' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'db.v1' },
    });
  });

  it('leaves out names no ServiceAccount can have, which the API server would refuse', () => {
    const hostile = { ...condition, spec: { serviceAccounts: ['db', 'Not_Valid', '', 'a'.repeat(254)] } };
    expect(operatorConditionRoleBinding(hostile).subjects).toEqual([{ kind: 'ServiceAccount', name: 'db', namespace: 'team' }]);
    expect(invalidServiceAccounts(hostile)).toEqual(['Not_Valid', '', 'a'.repeat(254)]);
  });

  it('compares rules and subjects as stored: absent equals empty, a ServiceAccount without namespace is in the binding\'s', () => {
    const role = operatorConditionRole(condition);
    const stored = { ...role, rules: role.rules!.map((rule) => ({ ...rule, apiGroups: [...rule.apiGroups!] })) };
    expect(hasDesiredRules(stored, role)).toBe(true);
    expect(hasDesiredRules({ ...role, rules: [role.rules![0]!] }, role)).toBe(false);
    const binding = operatorConditionRoleBinding(condition);
    const upstreamShape = { ...binding, subjects: [{ kind: 'ServiceAccount', name: 'db', apiGroup: '' }, { kind: 'ServiceAccount', name: 'db-cluster' }] };
    expect(hasDesiredSubjects(upstreamShape, binding)).toBe(true);
    expect(hasDesiredSubjects({ ...binding, subjects: [{ kind: 'ServiceAccount', name: 'db', namespace: 'other' }, binding.subjects![1]!] }, binding)).toBe(false);
  });

  it('adds its owner reference and keeps the others', () => {
    const role = operatorConditionRole(condition);
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'cm' };
    expect(withDesiredOwner({ ...role, metadata: { ...role.metadata, ownerReferences: [other] } }, role)).toEqual([other, owner]);
  });
});

import { hasErrorCode, type OwnerReference, type PolicyRule } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { policyRuleJson, policyRuleProblem, ruleSatisfied, type BindingObject, type RbacView, type RoleObject } from './rule-checker.js';

const csv = { name: 'etcd.v1', uid: 'uid-etcd' };
const account = { namespace: 'operators', name: 'etcd-operator' };
const saSubject = { kind: 'ServiceAccount', name: 'etcd-operator', namespace: 'operators' };

/** An RBAC view over plain lists, keyed as the informer cache would be. */
function view(objects: {
  roles?: Array<RoleObject & { metadata: { name: string; namespace: string } }>;
  clusterRoles?: Array<RoleObject & { metadata: { name: string } }>;
  roleBindings?: Array<BindingObject & { metadata: { name: string; namespace: string } }>;
  clusterRoleBindings?: BindingObject[];
}): RbacView {
  return {
    role: (namespace, name) => objects.roles?.find((role) => role.metadata.namespace === namespace && role.metadata.name === name),
    clusterRole: (name) => objects.clusterRoles?.find((role) => role.metadata.name === name),
    roleBindings: (namespace) => (objects.roleBindings ?? []).filter((binding) => binding.metadata.namespace === namespace),
    clusterRoleBindings: () => objects.clusterRoleBindings ?? [],
  };
}

type OwnerReferences = OwnerReference[];

const role = (name: string, rules: PolicyRule[], namespace = 'operators', ownerReferences?: OwnerReferences) => ({
  metadata: { name, namespace, ...(ownerReferences ? { ownerReferences } : {}) },
  rules,
});
const roleBinding = (name: string, roleKind: string, roleName: string, subjects = [saSubject], namespace = 'operators') => ({
  metadata: { name, namespace },
  roleRef: { kind: roleKind, name: roleName },
  subjects,
});

const deployments: PolicyRule = { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] };

describe('ruleSatisfied', () => {
  it('is satisfied by a Role bound to the service account in the namespace, and only there', () => {
    const rbac = view({ roles: [role('r', [deployments])], roleBindings: [roleBinding('b', 'Role', 'r')] });
    expect(ruleSatisfied(rbac, csv, account, 'operators', deployments)).toBe(true);
    expect(ruleSatisfied(rbac, csv, account, 'elsewhere', deployments)).toBe(false);
    // A cluster rule needs a ClusterRoleBinding.
    expect(ruleSatisfied(rbac, csv, account, '', deployments)).toBe(false);
  });

  it('needs every verb, group, resource and name of the rule', () => {
    const rbac = view({ roles: [role('r', [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }])], roleBindings: [roleBinding('b', 'Role', 'r')] });
    expect(ruleSatisfied(rbac, csv, account, 'operators', { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] })).toBe(true);
    expect(ruleSatisfied(rbac, csv, account, 'operators', deployments)).toBe(false);
    expect(ruleSatisfied(rbac, csv, account, 'operators', { verbs: ['get'], apiGroups: ['apps', 'extensions'], resources: ['deployments'] })).toBe(false);
    expect(ruleSatisfied(rbac, csv, account, 'operators', { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments', 'replicasets'] })).toBe(false);
  });

  it('honours wildcards and resource names as Kubernetes RBAC does', () => {
    const rbac = view({
      roles: [role('named', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }])],
      roleBindings: [roleBinding('n', 'Role', 'named')],
    });
    const wide = view({ roles: [role('r', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], 'wide')], roleBindings: [roleBinding('b', 'Role', 'r', [saSubject], 'wide')] });
    expect(ruleSatisfied(wide, csv, account, 'wide', { verbs: ['delete', 'watch'], apiGroups: ['batch'], resources: ['jobs'] })).toBe(true);
    // A role limited to one name grants that name, not the whole collection.
    expect(ruleSatisfied(rbac, csv, account, 'operators', { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] })).toBe(true);
    expect(ruleSatisfied(rbac, csv, account, 'operators', { verbs: ['get'], apiGroups: [''], resources: ['secrets'] })).toBe(false);
    // A requested `*` verb is only granted by a `*` verb.
    expect(ruleSatisfied(rbac, csv, account, 'operators', { verbs: ['*'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] })).toBe(false);
  });

  it('grants cluster rules through ClusterRoleBindings, and namespaced rules through them or RoleBindings to ClusterRoles', () => {
    const nodes: PolicyRule = { verbs: ['list'], apiGroups: [''], resources: ['nodes'] };
    const rbac = view({
      clusterRoles: [{ metadata: { name: 'nodes' }, rules: [nodes] }, { metadata: { name: 'deploy' }, rules: [deployments] }],
      clusterRoleBindings: [{ metadata: { name: 'crb' }, roleRef: { kind: 'ClusterRole', name: 'nodes' }, subjects: [saSubject] }],
      roleBindings: [roleBinding('rb', 'ClusterRole', 'deploy')],
    });
    expect(ruleSatisfied(rbac, csv, account, '', nodes)).toBe(true);
    expect(ruleSatisfied(rbac, csv, account, 'operators', nodes)).toBe(true);
    expect(ruleSatisfied(rbac, csv, account, 'operators', deployments)).toBe(true);
    expect(ruleSatisfied(rbac, csv, account, '', deployments)).toBe(false);
  });

  it('matches non-resource URLs exactly or by a trailing *', () => {
    const rbac = view({
      clusterRoles: [{ metadata: { name: 'metrics' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics', '/debug/*'] }] }],
      clusterRoleBindings: [{ metadata: { name: 'crb' }, roleRef: { kind: 'ClusterRole', name: 'metrics' }, subjects: [saSubject] }],
    });
    expect(ruleSatisfied(rbac, csv, account, '', { verbs: ['get'], nonResourceURLs: ['/metrics', '/debug/pprof'] })).toBe(true);
    expect(ruleSatisfied(rbac, csv, account, '', { verbs: ['get'], nonResourceURLs: ['/healthz'] })).toBe(false);
    expect(ruleSatisfied(rbac, csv, account, '', { verbs: ['post'], nonResourceURLs: ['/metrics'] })).toBe(false);
  });

  it('binds a ServiceAccount subject (its namespace defaulting to the binding’s) or its user name, nobody else', () => {
    const roles = [role('r', [deployments])];
    const bound = (subjects: BindingObject['subjects']) => ruleSatisfied(view({ roles, roleBindings: [roleBinding('b', 'Role', 'r', subjects as never)] }), csv, account, 'operators', deployments);
    expect(bound([{ kind: 'ServiceAccount', name: 'etcd-operator' }])).toBe(true);
    expect(bound([{ kind: 'User', name: 'system:serviceaccount:operators:etcd-operator' }])).toBe(true);
    expect(bound([{ kind: 'ServiceAccount', name: 'etcd-operator', namespace: 'other' }])).toBe(false);
    expect(bound([{ kind: 'ServiceAccount', name: 'someone-else', namespace: 'operators' }])).toBe(false);
    expect(bound([{ kind: 'Group', name: 'system:serviceaccounts' }])).toBe(false);
  });

  it('ignores RBAC owned by another CSV, but counts RBAC owned by this one', () => {
    const other: OwnerReferences = [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'other.v1', uid: 'uid-other' }];
    const mine: OwnerReferences = [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'etcd.v1', uid: 'uid-etcd' }, ...other];
    const satisfiedWith = (ownerReferences: OwnerReferences) =>
      ruleSatisfied(view({ roles: [role('r', [deployments], 'operators', ownerReferences)], roleBindings: [roleBinding('b', 'Role', 'r')] }), csv, account, 'operators', deployments);
    expect(satisfiedWith(other)).toBe(false);
    expect(satisfiedWith(mine)).toBe(true);
    // The same on the binding.
    const binding = { ...roleBinding('b', 'Role', 'r'), metadata: { name: 'b', namespace: 'operators', ownerReferences: other } };
    expect(ruleSatisfied(view({ roles: [role('r', [deployments])], roleBindings: [binding] }), csv, account, 'operators', deployments)).toBe(false);
  });

  it('refuses rules upstream calls invalid, with a coded error', () => {
    const thrown = (rule: PolicyRule) => {
      try {
        ruleSatisfied(view({}), csv, account, 'operators', rule);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const noVerbs = thrown({ verbs: [], apiGroups: [''], resources: ['pods'] });
    expect(hasErrorCode(noVerbs, 'OLM_CSV_INVALID_RULE')).toBe(true);
    expect((noVerbs as Error).message).toBe('rule invalid: policy rule must have at least one verb');
    expect((thrown({ verbs: ['get'], resources: ['pods'], nonResourceURLs: ['/x'] }) as Error).message).toBe(
      'rule invalid: rule cannot apply to both regular resources and non-resource URLs',
    );
    expect(policyRuleProblem(deployments)).toBeUndefined();
  });
});

describe('policyRuleJson', () => {
  it('writes Go’s field order, omits empty lists but not verbs, and escapes HTML like json.Marshal', () => {
    expect(policyRuleJson({ resources: ['configmaps'], apiGroups: [''], verbs: ['get'] })).toBe('{"verbs":["get"],"apiGroups":[""],"resources":["configmaps"]}');
    expect(policyRuleJson({ nonResourceURLs: ['/a<b>&'], verbs: ['get'], resourceNames: [] })).toBe('{"verbs":["get"],"nonResourceURLs":["/a\\u003cb\\u003e\\u0026"]}');
    expect(policyRuleJson({})).toBe('{"verbs":null}');
  });
});

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@olm/core';
import { exampleBundle, installModes, withCsv } from '../test/example-bundles.js';
import { permissionStruct } from '@olm/plugin-rbac';
import { contentHash } from './object-names.js';
import { renderRegistryV1Bundle, renderedObjects, type RenderInput } from './render-bundle.js';

const { bundle, manifests } = await exampleBundle('acme-database', 'acme-database.v1.2.0');
const base: RenderInput = { bundle, manifests, installNamespace: 'acme-system', extensionName: 'acme-database' };
const csvName = 'acme-database.v1.2.0';
const account = 'acme-database-operator';

const byKind = (objects: readonly KubeObject[], kind: string) => objects.filter((object) => object.kind === kind) as any[];

describe('AllNamespaces (no watchNamespace, the bundle supports it)', () => {
  const rendered = renderRegistryV1Bundle(base);
  const objects = renderedObjects(rendered);

  it('watches all namespaces and orders the phases CRDs, RBAC, workloads', () => {
    expect(rendered.targetNamespaces).toEqual(['']);
    expect(rendered.phases.map((phase) => [phase.name, phase.objects.map((object) => object.kind)])).toEqual([
      ['crds', ['CustomResourceDefinition']],
      ['rbac', ['ServiceAccount', 'ClusterRole', 'ClusterRole', 'ClusterRoleBinding', 'ClusterRoleBinding']],
      ['workloads', ['Deployment']],
    ]);
  });

  it('turns permissions into a ClusterRole that may also list namespaces, bound to the operator account in the install namespace', () => {
    const csv = manifests.find((manifest) => manifest.kind === 'ClusterServiceVersion') as any;
    const permission = csv.spec.install.spec.permissions[0];
    const promoted = byKind(objects, 'ClusterRole').find((role) => role.rules.length === permission.rules.length + 1);
    expect(promoted.rules.at(-1)).toEqual({ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] });
    expect(promoted.rules.slice(0, -1)).toEqual(permission.rules);
    const hash = contentHash(permissionStruct(account, promoted.rules));
    // `<csv>-<account>-<hash>` cut to 63 characters: the 44-character hash leaves 18 for the base.
    expect(promoted.metadata.name).toBe(`acme-database.v1.2-${hash}`);
    const binding = byKind(objects, 'ClusterRoleBinding').find((item) => item.metadata.name === promoted.metadata.name);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: promoted.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: account, namespace: 'acme-system' }]);
    expect(byKind(objects, 'Role')).toEqual([]);
  });

  it('names roles after the hash of their entry, so changed rules make a new role and unchanged ones keep theirs', () => {
    const names = byKind(objects, 'ClusterRole').map((role) => role.metadata.name);
    expect(names.every((name: string) => name.length <= 63)).toBe(true);
    const changed = renderedObjects(
      renderRegistryV1Bundle({ ...base, manifests: withCsv(manifests, (copy) => copy.spec.install.spec.clusterPermissions[0].rules[0].verbs.push('delete')) }),
    );
    const changedNames = byKind(changed, 'ClusterRole').map((role) => role.metadata.name);
    expect(changedNames.filter((name: string) => names.includes(name))).toHaveLength(1);
  });

  it('creates the operator ServiceAccount in the install namespace', () => {
    expect(byKind(objects, 'ServiceAccount')).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: account, namespace: 'acme-system', labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'acme-database' } },
      },
    ]);
  });

  it('renders the Deployment in the install namespace with the CSV annotations and olm.targetNamespaces "" on the pod template', () => {
    const [deployment] = byKind(objects, 'Deployment');
    expect(deployment.metadata).toMatchObject({ name: 'acme-database-operator', namespace: 'acme-system', labels: { 'app.kubernetes.io/name': 'acme-database-operator' } });
    expect(deployment.spec.revisionHistoryLimit).toBe(1);
    expect(deployment.spec.template.metadata.annotations).toMatchObject({ 'olm.targetNamespaces': '', capabilities: 'Basic Install' });
    expect(deployment.spec.template.spec.serviceAccountName).toBe(account);
  });

  it('puts the owner labels on every object and the CRD without a namespace', () => {
    for (const object of objects) {
      expect(object.metadata.labels).toMatchObject({ 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'acme-database' });
    }
    expect(byKind(objects, 'CustomResourceDefinition')[0].metadata.namespace).toBeUndefined();
  });
});

describe('OwnNamespace (watchNamespace is the install namespace)', () => {
  const objects = renderedObjects(renderRegistryV1Bundle({ ...base, watchNamespace: 'acme-system' }));

  it('turns permissions into a Role and RoleBinding in the install namespace; clusterPermissions stay cluster-wide', () => {
    const [role] = byKind(objects, 'Role');
    const [binding] = byKind(objects, 'RoleBinding');
    expect(role.metadata.namespace).toBe('acme-system');
    expect(role.rules.some((rule: any) => rule.resources?.includes('namespaces'))).toBe(false);
    expect(binding.metadata).toMatchObject({ name: role.metadata.name, namespace: 'acme-system' });
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: account, namespace: 'acme-system' }]);
    expect(byKind(objects, 'ClusterRole')).toHaveLength(1);
    expect(byKind(objects, 'Deployment')[0].spec.template.metadata.annotations['olm.targetNamespaces']).toBe('acme-system');
  });
});

describe('SingleNamespace (watchNamespace is another namespace)', () => {
  const rendered = renderRegistryV1Bundle({ ...base, watchNamespace: 'team-a' });
  const objects = renderedObjects(rendered);

  it('puts the Role and RoleBinding in the watched namespace, bound to the account in the install namespace', () => {
    expect(rendered.targetNamespaces).toEqual(['team-a']);
    const [role] = byKind(objects, 'Role');
    const [binding] = byKind(objects, 'RoleBinding');
    expect(role.metadata.namespace).toBe('team-a');
    expect(binding.metadata.namespace).toBe('team-a');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: account, namespace: 'acme-system' }]);
    expect(byKind(objects, 'ServiceAccount')[0].metadata.namespace).toBe('acme-system');
    expect(byKind(objects, 'Deployment')[0].metadata.namespace).toBe('acme-system');
    expect(byKind(objects, 'Deployment')[0].spec.template.metadata.annotations['olm.targetNamespaces']).toBe('team-a');
  });

  it('orders RBAC as ServiceAccounts, ClusterRoles, ClusterRoleBindings, Roles, RoleBindings', () => {
    expect(rendered.phases[1]!.objects.map((object) => object.kind)).toEqual(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
  });
});

describe('the bundle\u2019s other objects', () => {
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'metrics', namespace: 'elsewhere', uid: 'x' }, spec: { ports: [{ port: 8080 }] }, status: { loadBalancer: {} } };
  const reader = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'acme-metrics-reader', namespace: 'stray' }, rules: [] };
  const pullAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account }, imagePullSecrets: [{ name: 'pull' }] };
  const rendered = renderRegistryV1Bundle({ ...base, manifests: [...manifests, service, reader, pullAccount] });

  it('go to the install namespace when namespaced, without server-set fields; cluster-scoped ones lose their namespace', () => {
    const [placed] = byKind(rendered.phases[2]!.objects, 'Service');
    expect(placed.metadata).toEqual({ name: 'metrics', namespace: 'acme-system', labels: expect.any(Object) });
    expect(placed.status).toBeUndefined();
    const [clusterRole] = byKind(rendered.phases[1]!.objects, 'ClusterRole').filter((role) => role.metadata.name === 'acme-metrics-reader');
    expect(clusterRole.metadata.namespace).toBeUndefined();
  });

  it('a ServiceAccount the bundle ships replaces the generated one', () => {
    const accounts = byKind(rendered.phases[1]!.objects, 'ServiceAccount');
    expect(accounts).toHaveLength(1);
    expect(accounts[0].imagePullSecrets).toEqual([{ name: 'pull' }]);
  });
});

describe('determinism', () => {
  it('renders the same input to identical output, twice and from a copy', () => {
    const first = JSON.stringify(renderRegistryV1Bundle({ ...base, watchNamespace: 'team-a' }));
    const second = JSON.stringify(renderRegistryV1Bundle({ ...structuredClone(base), watchNamespace: 'team-a' }));
    expect(second).toBe(first);
  });

  it('leaves the input manifests untouched', () => {
    const before = JSON.stringify(manifests);
    renderRegistryV1Bundle(base);
    expect(JSON.stringify(manifests)).toBe(before);
  });

  it('defaults to the install namespace for a bundle that supports OwnNamespace only', () => {
    const rendered = renderRegistryV1Bundle({ ...base, manifests: withCsv(manifests, (copy) => (copy.spec.installModes = installModes('OwnNamespace'))) });
    expect(rendered.targetNamespaces).toEqual(['acme-system']);
  });
});

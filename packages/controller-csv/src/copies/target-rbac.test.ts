import type { CachedObject, KubeObject, ObjectKind, ObjectReader } from '@olm/core';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { describe, expect, it } from 'vitest';
import type { Csv, Og } from '../shared.js';
import { allNamespacesRbacNames, isForeign, liftedRbacNames, planTargetRbac, rbacDiffers, type RbacObject } from './target-rbac.js';

/** An in-memory ObjectReader with equality label selectors, enough for the planner. */
function fakeCache(objects: readonly CachedObject[]): ObjectReader {
  const matches = (object: CachedObject, kind: ObjectKind) => object.apiVersion === kind.apiVersion && object.kind === kind.kind;
  return {
    // A fake holding plain objects of the kinds asked for: typed reads see them as the kind's type.
    get: (kind, name, namespace) =>
      objects.find((object) => matches(object, kind) && object.metadata?.name === name && (object.metadata?.namespace ?? undefined) === (namespace || undefined)) as never,
    list: (kind, options = {}) =>
      objects.filter((object) => {
        if (!matches(object, kind)) return false;
        if (options.namespace !== undefined && object.metadata?.namespace !== options.namespace) return false;
        const labels = object.metadata?.labels ?? {};
        return (options.labelSelector ?? '')
          .split(',')
          .filter(Boolean)
          .every((term) => {
            const [key, value] = term.split('=');
            return labels[key!] === value;
          });
      }) as never,
  };
}

const rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'watch'] }];
const clusterRules = [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }];
const namespaceView = { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] };

function makeCsv(status: { phase?: string; reason?: string } = { phase: 'Succeeded', reason: 'InstallSucceeded' }): Csv {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: 'app.v1', namespace: 'ops', uid: 'csv-uid' },
    spec: {
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [],
          permissions: [{ serviceAccountName: 'app', rules }],
          clusterPermissions: [{ serviceAccountName: 'app', rules: clusterRules }],
        },
      },
    },
    status,
  } as unknown as Csv;
}

function makeGroup(namespaces: string[]): Og {
  return {
    apiVersion: 'operators.coreos.com/v1',
    kind: 'OperatorGroup',
    metadata: { name: 'og', namespace: 'ops', uid: 'og-uid' },
    status: { namespaces, lastUpdated: '2026-01-01T00:00:00Z' },
  } as unknown as Og;
}

const namespace = (name: string, phase = 'Active'): CachedObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, status: { phase } });

const generator = createRbacGenerator();
/** What an InstallPlan created in the operator namespace: the Role and RoleBinding sources. */
const sources = (csv: Csv) =>
  (generator.permissionsForCsv({ csv: csv as unknown as KubeObject }) as unknown as CachedObject[]).filter(
    (object) => object.kind === 'Role' || object.kind === 'RoleBinding',
  );
const clusterPermissionObjects = (csv: Csv) =>
  (generator.permissionsForCsv({ csv: csv as unknown as KubeObject }) as unknown as CachedObject[]).filter((object) => object.kind === 'ClusterRole');

function plan(csv: Csv, group: Og | undefined, cluster: readonly CachedObject[]) {
  const cache = fakeCache(cluster);
  const generated = group ? generator.permissionsForOperatorGroup({ csv: csv as unknown as KubeObject, operatorGroup: group as unknown as KubeObject }) : [];
  return planTargetRbac({ csv, operatorGroup: group, ownership: generator.ownership, generated, liftedNames: liftedRbacNames(allNamespacesRbacNames(generator, csv), csv, cache, generator.ownership), cache });
}

const summary = (objects: readonly CachedObject[]) => objects.map((object) => `${object.kind}/${object.metadata?.namespace ?? ''}`);

describe('planTargetRbac', () => {
  it('copies the Role and RoleBinding into each target namespace but the operator namespace, with exactly the CSV rules', () => {
    const csv = makeCsv();
    const result = plan(csv, makeGroup(['ops', 'team-a', 'team-b']), [...sources(csv), namespace('ops'), namespace('team-a'), namespace('team-b')]);
    expect(summary(result.apply)).toEqual(['Role/team-a', 'RoleBinding/team-a', 'Role/team-b', 'RoleBinding/team-b']);
    const [source] = sources(csv);
    for (const object of result.apply) {
      expect(object.metadata?.name).toBe(source!.metadata?.name);
      expect(object.metadata?.labels).toMatchObject({
        'olm.copiedFrom': 'ops',
        'olm.owner': 'app.v1',
        'olm.owner.namespace': object.metadata?.namespace,
        'olm.owner.kind': 'ClusterServiceVersion',
        'olm.managed': 'true',
      });
    }
    expect(result.apply[0]).toMatchObject({ rules: [{ verbs: ['get', 'watch'], apiGroups: [''], resources: ['configmaps'] }] });
    expect((result.apply[0] as RbacObject).rules).toHaveLength(1);
    expect(result.apply[1]).toMatchObject({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: source!.metadata?.name },
      subjects: [{ kind: 'ServiceAccount', name: 'app', namespace: 'ops' }],
    });
    expect(result.remove).toEqual([]);
  });

  it('lifts them for an AllNamespaces group: the CSV rules plus get/list/watch on namespaces, nothing else', () => {
    const csv = makeCsv();
    const result = plan(csv, makeGroup(['']), [...sources(csv), ...clusterPermissionObjects(csv)]);
    expect(summary(result.apply)).toEqual(['ClusterRole/', 'ClusterRoleBinding/']);
    expect((result.apply[0] as RbacObject).rules).toEqual([{ verbs: ['get', 'watch'], apiGroups: [''], resources: ['configmaps'] }, namespaceView]);
    expect(result.apply[1]).toMatchObject({ roleRef: { kind: 'ClusterRole' }, subjects: [{ kind: 'ServiceAccount', name: 'app', namespace: 'ops' }] });
    expect(result.remove).toEqual([]);
  });

  it('copies nothing whose source the operator namespace lacks, and nothing into missing or terminating namespaces', () => {
    const csv = makeCsv();
    const [role] = sources(csv);
    expect(plan(csv, makeGroup(['team-a']), [namespace('team-a')]).apply).toEqual([]);
    const result = plan(csv, makeGroup(['team-a', 'team-b', 'team-c']), [role!, namespace('team-a'), namespace('team-c', 'Terminating')]);
    expect(summary(result.apply)).toEqual(['Role/team-a']);
  });

  it('keeps but does not add copies while the CSV is not Succeeded, and removes all of them for a group failure', () => {
    const succeeded = makeCsv();
    const copies = plan(succeeded, makeGroup(['team-a', 'team-b']), [...sources(succeeded), namespace('team-a'), namespace('team-b')]).apply;
    const existing = [...sources(succeeded), namespace('team-a'), namespace('team-b'), ...copies.filter((object) => object.metadata?.namespace === 'team-a')];

    const reinstalling = plan(makeCsv({ phase: 'Failed', reason: 'ComponentUnhealthy' }), makeGroup(['team-a', 'team-b']), existing);
    expect(summary(reinstalling.apply)).toEqual(['Role/team-a', 'RoleBinding/team-a']);
    expect(reinstalling.remove).toEqual([]);

    const conflicting = plan(makeCsv({ phase: 'Failed', reason: 'InterOperatorGroupOwnerConflict' }), makeGroup(['team-a', 'team-b']), existing);
    expect(conflicting.apply).toEqual([]);
    expect(summary(conflicting.remove)).toEqual(['Role/team-a', 'RoleBinding/team-a']);

    expect(summary(plan(succeeded, undefined, existing).remove)).toEqual(['Role/team-a', 'RoleBinding/team-a']);
  });

  it('removes copies of namespaces no longer targeted, and lifted objects once the group stops targeting all namespaces', () => {
    const csv = makeCsv();
    const cluster = [...sources(csv), ...clusterPermissionObjects(csv), namespace('team-a'), namespace('team-b')];
    const copies = plan(csv, makeGroup(['team-a', 'team-b']), cluster).apply;
    const lifted = plan(csv, makeGroup(['']), cluster).apply;
    const narrowed = plan(csv, makeGroup(['team-a']), [...cluster, ...copies, ...lifted]);
    expect(summary(narrowed.apply)).toEqual(['Role/team-a', 'RoleBinding/team-a']);
    expect(summary(narrowed.remove)).toEqual(['Role/team-b', 'RoleBinding/team-b', 'ClusterRole/', 'ClusterRoleBinding/']);
    // The ClusterRole of the CSV's clusterPermissions (same owner labels) is not OLM-operator's to remove.
    const clusterPermissionRole = clusterPermissionObjects(csv)[0]!.metadata?.name;
    expect(narrowed.remove.map((object) => object.metadata?.name)).not.toContain(clusterPermissionRole);
  });

  it('leaves alone objects of the same name it did not make', () => {
    const csv = makeCsv();
    const [role] = sources(csv);
    const foreign: CachedObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: role!.metadata?.name, namespace: 'team-a', labels: {} } };
    const result = plan(makeCsv({ phase: 'Failed', reason: 'NoOperatorGroup' }), undefined, [role!, namespace('team-a'), foreign]);
    expect(result.remove).toEqual([]);
    const [copy] = plan(csv, makeGroup(['team-a']), [role!, namespace('team-a')]).apply;
    expect(isForeign(foreign, copy!, generator.ownership)).toBe(true);
    expect(isForeign({ ...copy!, rules: [] }, copy!, generator.ownership)).toBe(false);
  });
});

describe('rbacDiffers', () => {
  const role: RbacObject = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'r', namespace: 'a', labels: { 'olm.copiedFrom': 'ops' } },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
  };
  it('ignores labels added by others, empty lists and key order', () => {
    const live = {
      ...role,
      metadata: { ...role.metadata, labels: { 'olm.copiedFrom': 'ops', extra: 'x' }, resourceVersion: '7' },
      rules: [{ verbs: ['get'], resources: ['pods'], apiGroups: [''], resourceNames: [] }],
    };
    expect(rbacDiffers(live, role)).toBe(false);
  });
  it('sees changed rules, labels and owner references', () => {
    expect(rbacDiffers({ ...role, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] }, role)).toBe(true);
    expect(rbacDiffers({ ...role, metadata: { ...role.metadata, labels: {} } }, role)).toBe(true);
    const owned = { ...role, metadata: { ...role.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }] } };
    expect(rbacDiffers(owned, role)).toBe(true);
    expect(rbacDiffers(owned, owned)).toBe(false);
  });
});

/**
 * The RBAC the spec's examples produce (OLM understanding §2.3.5, §2.3.6, §2.3.8), written out by hand
 * from the spec's tables, with the reference's naming where the two differ (`<crd>-<version>-crdview`;
 * aggregation labels keyed by the API's FNV hash, valued "true"). Nothing here is read from expected.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { createRbacGenerator, fnv64aHex } from '../src/index.js';
import { expectedSha224Base62 } from './support.js';

interface CaseInput {
  readonly csv: KubeObject;
  readonly operatorGroup: KubeObject;
  readonly crds?: KubeObject[];
  readonly apiServices?: KubeObject[];
}

const load = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, 'cases', name, 'input.json'), 'utf8')) as CaseInput;
const rbac = createRbacGenerator();

const verbsBySuffix = { admin: ['*'], edit: ['create', 'update', 'patch', 'delete'], view: ['get', 'list', 'watch'] } as const;

/** One row of the spec's table 2.5/2.6: `<name>-<version>-<suffix>` granting `verbs` on `<group>/<plural>`. */
function apiRole(base: string, api: string, suffix: keyof typeof verbsBySuffix, group: string, plural: string, owner: object) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name: `${base}-${suffix}`,
      labels: {
        [`rbac.authorization.k8s.io/aggregate-to-${suffix}`]: 'true',
        [`olm.opgroup.permissions/aggregate-to-${fnv64aHex(api)}-${suffix}`]: 'true',
        'olm.managed': 'true',
      },
      ownerReferences: [{ ...owner, controller: false, blockOwnerDeletion: false }],
    },
    rules: [{ verbs: [...verbsBySuffix[suffix]], apiGroups: [group], resources: [plural] }],
  };
}

describe('the spec’s examples, rule by rule', () => {
  it('§2.3.5/§2.3.6 packageserver: admin, edit and view ClusterRoles for the PackageManifest APIService, nothing more', () => {
    const input = load('spec-olm-operators-packageserver');
    const owner = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1alpha1.packages.apps.redhat.com', uid: 'uid-apiservice' };
    const api = 'PackageManifest.v1alpha1.packages.apps.redhat.com';
    const role = (suffix: keyof typeof verbsBySuffix) => apiRole('packagemanifests-v1alpha1', api, suffix, 'packages.apps.redhat.com', 'packagemanifests', owner);
    expect(rbac.providedApiClusterRoles({ csv: input.csv, apiServices: input.apiServices! })).toEqual([role('admin'), role('edit'), role('view')]);
  });

  it('§2.3.6 the three OperatorGroup ClusterRoles aggregate exactly the group’s provided APIs', () => {
    const input = load('spec-olm-operators-packageserver');
    const api = 'PackageManifest.v1alpha1.packages.apps.redhat.com';
    expect(rbac.operatorGroupClusterRoles({ operatorGroup: input.operatorGroup })).toEqual(
      (['admin', 'edit', 'view'] as const).map((suffix) => ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: {
          name: `olm.og.olm-operators.${suffix}-${expectedSha224Base62(`local/olm-operators/${suffix}`)}`,
          labels: { 'olm.owner': 'olm-operators', 'olm.owner.namespace': 'local', 'olm.owner.kind': 'OperatorGroup', 'olm.managed': 'true' },
        },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`olm.opgroup.permissions/aggregate-to-${fnv64aHex(api)}-${suffix}`]: 'true' } }] },
      })),
    );
  });

  it('§2.3.8 cluster-monitoring: four ClusterRoles per Prometheus CRD, and group roles selecting the four APIs', () => {
    const input = load('spec-static-cluster-monitoring');
    const crds = [
      ['Alertmanager', 'alertmanagers'],
      ['Prometheus', 'prometheuses'],
      ['PrometheusRule', 'prometheusrules'],
      ['ServiceMonitor', 'servicemonitors'],
    ] as const;
    const expected = crds.flatMap(([kind, plural]) => {
      const name = `${plural}.monitoring.coreos.com`;
      const api = `${kind}.v1.monitoring.coreos.com`;
      const owner = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name, uid: `uid-${plural}` };
      const crdView = {
        ...apiRole(`${name}-v1`, api, 'view', 'monitoring.coreos.com', plural, owner),
        rules: [{ verbs: ['get'], apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], resourceNames: [name] }],
      };
      crdView.metadata = { ...crdView.metadata, name: `${name}-v1-crdview` };
      return [...(['admin', 'edit', 'view'] as const).map((suffix) => apiRole(`${name}-v1`, api, suffix, 'monitoring.coreos.com', plural, owner)), crdView];
    });
    expect(rbac.providedApiClusterRoles({ csv: input.csv, crds: input.crds! })).toEqual(expected);

    const selectors = (suffix: string) =>
      crds
        .map(([kind]) => `olm.opgroup.permissions/aggregate-to-${fnv64aHex(`${kind}.v1.monitoring.coreos.com`)}-${suffix}`)
        .sort()
        .map((key) => ({ matchLabels: { [key]: 'true' } }));
    const groupRoles = rbac.operatorGroupClusterRoles({ operatorGroup: input.operatorGroup }) as Array<KubeObject & { aggregationRule?: unknown; rules?: unknown }>;
    expect(groupRoles.map((role) => role.aggregationRule)).toEqual(['admin', 'edit', 'view'].map((suffix) => ({ clusterRoleSelectors: selectors(suffix) })));
    expect(groupRoles.every((role) => role.rules === undefined)).toBe(true);
  });

  it('§2.3.6 additional Roles: copied into each selected namespace, or lifted to cluster scope for all namespaces, with exactly the CSV’s rules', () => {
    const input = load('spec-static-cluster-monitoring');
    const asked = (input.csv.spec as { install: { spec: { permissions: Array<{ rules: Array<Record<string, string[]>> }> } } }).install.spec.permissions[0]!.rules;
    // Go's field order: verbs first.
    const rules = asked.map((rule) => ({ verbs: rule.verbs, apiGroups: rule.apiGroups, resources: rule.resources }));
    const copies = rbac.permissionsForOperatorGroup({ csv: input.csv, operatorGroup: input.operatorGroup }) as Array<KubeObject & { rules?: unknown; subjects?: unknown }>;
    expect(copies.map((object) => `${object.kind}/${object.metadata.namespace}`)).toEqual(['Role/monitoring-a', 'RoleBinding/monitoring-a', 'Role/monitoring-b', 'RoleBinding/monitoring-b']);
    for (const copy of copies) {
      if (copy.kind === 'Role') expect(copy.rules).toEqual(rules);
      else expect(copy.subjects).toEqual([{ kind: 'ServiceAccount', name: 'prometheus-operator', namespace: 'cluster-monitoring' }]);
      expect(copy.metadata.labels).toMatchObject({ 'olm.owner': 'prometheusoperator.0.32.0', 'olm.copiedFrom': 'cluster-monitoring' });
    }

    const global = { ...input.operatorGroup, status: { namespaces: [''] } } as KubeObject;
    const lifted = rbac.permissionsForOperatorGroup({ csv: input.csv, operatorGroup: global }) as Array<KubeObject & { rules?: unknown; roleRef?: unknown }>;
    expect(lifted.map((object) => object.kind)).toEqual(['ClusterRole', 'ClusterRoleBinding']);
    expect(lifted[0]!.rules).toEqual([...rules, { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] }]);
    expect(lifted[0]!.metadata.labels).toMatchObject({ 'olm.owner': 'prometheusoperator.0.32.0', 'olm.owner.namespace': 'cluster-monitoring' });
    expect(lifted[1]!.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: lifted[0]!.metadata.name });
  });
});

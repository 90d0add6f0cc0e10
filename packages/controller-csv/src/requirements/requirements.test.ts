import type { ClusterServiceVersion } from '@olm/api';
import type { CachedObject, ObjectKind, ObjectReader } from '@olm/core';
import { hasErrorCode } from '@olm/core';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { describe, expect, it } from 'vitest';
import { checkRequirements, discoveryNeeded, minKubeVersionStatus, parseKubeVersion, type RequirementInputs } from './requirements.js';

/** An in-memory ObjectReader (name and namespace lookups only). */
function reader(objects: readonly CachedObject[]): ObjectReader {
  const matches = (object: CachedObject, kind: ObjectKind) => object.apiVersion === kind.apiVersion && object.kind === kind.kind;
  return {
    // A fake holding plain objects of the kinds asked for: typed reads see them as the kind's type.
    get: (kind, name, namespace) =>
      objects.find((object) => matches(object, kind) && object.metadata?.name === name && (object.metadata?.namespace ?? '') === (namespace ?? '')) as never,
    list: (kind, options = {}) => objects.filter((object) => matches(object, kind) && (options.namespace === undefined || object.metadata?.namespace === options.namespace)) as never,
  };
}

type Csv = ClusterServiceVersion & { metadata: { name: string; namespace: string; uid: string } };

function makeCsv(spec: Partial<ClusterServiceVersion['spec']> & { install?: ClusterServiceVersion['spec']['install'] }): Csv {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: 'etcd.v1', namespace: 'operators', uid: 'uid-etcd' },
    spec: { displayName: 'etcd', install: { strategy: 'deployment', spec: { deployments: [{ name: 'etcd-operator', spec: {} }] } }, ...spec },
  } as Csv;
}

const inputs = (objects: readonly CachedObject[] = [], extra: Partial<RequirementInputs> = {}): RequirementInputs => ({
  cache: reader(objects),
  serverVersion: 'v1.32.4',
  ...extra,
});

const account = (name: string, ownerReferences?: unknown[]): CachedObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace: 'operators', uid: `uid-${name}`, ...(ownerReferences ? { ownerReferences: ownerReferences as never } : {}) },
});

describe('minKubeVersion', () => {
  it.each([
    ['1.20.0', 'v1.32.4', 'Present', 'CSV minKubeVersion (1.20.0) less than server version (v1.32.4)'],
    ['1.32.4', 'v1.32.4-gke.1', 'Present', 'CSV minKubeVersion (1.32.4) less than server version (v1.32.4-gke.1)'],
    ['1.33.0', 'v1.32.4+k3s1', 'PresentNotSatisfied', 'CSV version requirement not met: minKubeVersion (1.33.0) > server version (1.32.4)'],
    ['banana', 'v1.32.4', 'PresentNotSatisfied', 'CSV version parsing error'],
    ['1.20.0', 'weird', 'PresentNotSatisfied', 'Server version parsing error'],
    ['1.20.0', undefined, 'PresentNotSatisfied', 'Server version discovery error'],
  ])('minKubeVersion %s on a %s server → %s', (min, server, status, message) => {
    expect(minKubeVersionStatus(makeCsv({ minKubeVersion: min }), server)).toEqual([
      { group: 'operators.coreos.com', version: 'v1alpha1', kind: 'ClusterServiceVersion', name: 'etcd.v1', status, message },
    ]);
  });

  it('is no requirement when the CSV sets none', () => {
    expect(minKubeVersionStatus(makeCsv({}), 'v1.32.4')).toEqual([]);
    expect(parseKubeVersion('v1.32')).toEqual([1, 32, 0]);
  });
});

describe('APIs in discovery', () => {
  const served = (table: Record<string, string[]>) => (groupVersion: string) => (table[groupVersion] ? new Set(table[groupVersion]) : undefined);

  it('checks native APIs against discovery', () => {
    const csv = makeCsv({
      nativeAPIs: [
        { group: '', version: 'v1', kind: 'ConfigMap' },
        { group: 'route.openshift.io', version: 'v1', kind: 'Route' },
      ],
    });
    expect(discoveryNeeded(csv)).toEqual(['v1', 'route.openshift.io/v1']);
    const result = checkRequirements(csv, inputs([], { servedKinds: served({ v1: ['ConfigMap', 'Secret'] }) }));
    expect(result.met).toBe(false);
    expect(result.statuses).toEqual([
      { group: '', version: 'v1', kind: 'ConfigMap', name: 'v1.', status: 'Present', message: 'Native API exists' },
      { group: 'route.openshift.io', version: 'v1', kind: 'Route', name: 'v1.route.openshift.io', status: 'NotPresent', message: 'Native API does not exist' },
    ]);
  });

  it('needs a required APIService served, registered and Available', () => {
    const csv = makeCsv({ apiservicedefinitions: { required: [{ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics', name: 'pods', displayName: 'Pods' }] } });
    const apiService = (available: string): CachedObject => ({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io', uid: 'uid-svc' },
      status: { conditions: [{ type: 'Available', status: available }] },
    } as CachedObject);
    const base = { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', name: 'v1beta1.metrics.k8s.io', message: '' };
    const discovery = served({ 'metrics.k8s.io/v1beta1': ['PodMetrics'] });
    const statusWith = (extra: Partial<RequirementInputs>) => checkRequirements(csv, inputs([], extra)).statuses;
    expect(statusWith({ apiService: () => apiService('True') })).toEqual([{ ...base, status: 'NotPresent' }]);
    expect(statusWith({ servedKinds: discovery })).toEqual([{ ...base, status: 'NotPresent' }]);
    expect(statusWith({ servedKinds: discovery, apiService: () => apiService('False') })).toEqual([{ ...base, status: 'NotPresent' }]);
    expect(statusWith({ servedKinds: discovery, apiService: () => apiService('True') })).toEqual([{ ...base, status: 'Present', uuid: 'uid-svc' }]);
  });

  it('needs each owned APIService served by one of the strategy’s deployments', () => {
    const owned = (deploymentName: string) =>
      makeCsv({ apiservicedefinitions: { owned: [{ group: 'mock.example.com', version: 'v1', kind: 'Mock', name: 'mocks', displayName: 'Mocks', deploymentName }] } });
    const base = { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', name: 'v1.mock.example.com', message: '' };
    expect(checkRequirements(owned('etcd-operator'), inputs())).toEqual({ met: true, statuses: [{ ...base, status: 'DeploymentFound' }] });
    expect(checkRequirements(owned('elsewhere'), inputs())).toEqual({ met: false, statuses: [{ ...base, status: 'DeploymentNotFound' }] });
  });
});

describe('service accounts and permissions', () => {
  const configmaps = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] };
  const nodes = { apiGroups: [''], resources: ['nodes'], verbs: ['list'] };
  const csv = makeCsv({
    install: {
      strategy: 'deployment',
      spec: {
        deployments: [{ name: 'etcd-operator', spec: {} as never }],
        permissions: [{ serviceAccountName: 'etcd-operator', rules: [configmaps] }],
        clusterPermissions: [{ serviceAccountName: 'etcd-operator', rules: [nodes] }],
      },
    },
  });
  const dependent = (scope: string, json: string, status: string) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'PolicyRule', status, message: `${scope} rule:${json}` });
  const configmapsJson = '{"verbs":["get"],"apiGroups":[""],"resources":["configmaps"]}';
  const nodesJson = '{"verbs":["list"],"apiGroups":[""],"resources":["nodes"]}';

  it('reports a missing service account', () => {
    expect(checkRequirements(csv, inputs()).statuses).toEqual([
      { group: '', version: 'v1', kind: 'ServiceAccount', name: 'etcd-operator', status: 'NotPresent', message: 'Service account does not exist' },
    ]);
  });

  it('reports each rule as a dependent, unsatisfied until RBAC grants it', () => {
    const result = checkRequirements(csv, inputs([account('etcd-operator')]));
    expect(result.met).toBe(false);
    expect(result.statuses).toEqual([
      {
        group: '',
        version: 'v1',
        kind: 'ServiceAccount',
        name: 'etcd-operator',
        uuid: 'uid-etcd-operator',
        status: 'PresentNotSatisfied',
        message: 'Policy rule not satisfied for service account',
        dependents: [dependent('namespaced', configmapsJson, 'NotSatisfied'), dependent('cluster', nodesJson, 'NotSatisfied')],
      },
    ]);
  });

  it('is met by exactly the RBAC the generator makes for the CSV (what an InstallPlan creates)', () => {
    const rbac = createRbacGenerator().permissionsForCsv({ csv: csv as never }) as unknown as CachedObject[];
    const result = checkRequirements(csv, inputs([account('etcd-operator'), ...rbac.filter((object) => object.kind !== 'ServiceAccount')]));
    expect(result.met).toBe(true);
    expect(result.statuses[0]).toMatchObject({
      status: 'Present',
      message: '',
      dependents: [dependent('namespaced', configmapsJson, 'Satisfied'), dependent('cluster', nodesJson, 'Satisfied')],
    });
    // Without the ClusterRoleBinding the cluster rule is not granted.
    const partial = checkRequirements(csv, inputs([account('etcd-operator'), ...rbac.filter((object) => object.kind !== 'ServiceAccount' && object.kind !== 'ClusterRoleBinding')]));
    expect(partial.met).toBe(false);
    expect(partial.statuses[0]?.dependents?.map((item) => item.status)).toEqual(['Satisfied', 'NotSatisfied']);
  });

  it('refuses a service account owned by another CSV', () => {
    const foreign = account('etcd-operator', [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'other.v1', uid: 'uid-other' }]);
    expect(checkRequirements(csv, inputs([foreign])).statuses[0]).toMatchObject({
      status: 'PresentNotSatisfied',
      message: 'Service account is owned by another ClusterServiceVersion',
    });
    const shared = account('etcd-operator', [
      { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'other.v1', uid: 'uid-other' },
      { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'etcd.v1', uid: 'uid-etcd' },
    ]);
    expect(checkRequirements(csv, inputs([shared])).statuses[0]?.message).toBe('Policy rule not satisfied for service account');
  });

  it('throws OLM_CSV_INVALID_RULE for a rule without verbs', () => {
    const invalid = makeCsv({
      install: { strategy: 'deployment', spec: { deployments: [], permissions: [{ serviceAccountName: 'etcd-operator', rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }] }] } },
    });
    let error: unknown;
    try {
      checkRequirements(invalid, inputs([account('etcd-operator')]));
    } catch (caught) {
      error = caught;
    }
    expect(hasErrorCode(error, 'OLM_CSV_INVALID_RULE')).toBe(true);
  });
});

describe('order', () => {
  it('lists minKubeVersion, CRDs, required and owned APIServices, native APIs, then service accounts', () => {
    const csv = makeCsv({
      minKubeVersion: '1.0.0',
      customresourcedefinitions: { owned: [{ name: 'etcdclusters.etcd.database.coreos.com', version: 'v1', kind: 'EtcdCluster' }], required: [{ name: 'backups.example.com', version: 'v1', kind: 'Backup' }] },
      apiservicedefinitions: {
        required: [{ group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics', name: 'pods', displayName: 'Pods' }],
        owned: [{ group: 'mock.example.com', version: 'v1', kind: 'Mock', name: 'mocks', displayName: 'Mocks', deploymentName: 'etcd-operator' }],
      },
      nativeAPIs: [{ group: 'apps', version: 'v1', kind: 'Deployment' }],
      install: { strategy: 'deployment', spec: { deployments: [{ name: 'etcd-operator', spec: {} as never }], permissions: [{ serviceAccountName: 'etcd-operator', rules: [] }] } },
    });
    expect(checkRequirements(csv, inputs()).statuses.map((status) => `${status.kind}/${status.name}`)).toEqual([
      'ClusterServiceVersion/etcd.v1',
      'CustomResourceDefinition/etcdclusters.etcd.database.coreos.com',
      'CustomResourceDefinition/backups.example.com',
      'APIService/v1beta1.metrics.k8s.io',
      'APIService/v1.mock.example.com',
      'Deployment/v1.apps',
      'ServiceAccount/etcd-operator',
    ]);
  });
});

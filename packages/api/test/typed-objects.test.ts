import { describe, expect, it } from 'vitest';
import {
  admitResource,
  Annotations,
  ApiVersions,
  Approvals,
  type CatalogSource,
  type ClusterServiceVersion,
  CSVPhases,
  CSVReasons,
  InstallModeTypes,
  type InstallPlan,
  InstallPlanConditionTypes,
  InstallPlanPhases,
  InstallStrategyNameDeployment,
  Labels,
  type OLMConfig,
  type Operator,
  type OperatorCondition,
  OperatorConditionTypes,
  type OperatorGroup,
  type OperatorsResource,
  SecurityContextConfigs,
  SourceTypes,
  StepStatuses,
  type Subscription,
  SubscriptionConditionTypes,
  SubscriptionReasons,
  SubscriptionStates,
  UpgradeStrategies,
  validateResource,
  WebhookAdmissionTypes,
} from '../src/index.js';

// Objects written against the TypeScript types (so `tsc` checks them) must also pass the CRD schemas:
// the types and the schemas describe the same API.
const now = '2024-05-01T10:00:00Z';

const csv: ClusterServiceVersion = {
  apiVersion: ApiVersions.v1alpha1,
  kind: 'ClusterServiceVersion',
  metadata: {
    name: 'memcached-operator.v0.0.2',
    namespace: 'operators',
    annotations: { [Annotations.skipRange]: '<0.0.2', [Annotations.operatorGroup]: 'og', [Annotations.targetNamespaces]: '' },
    labels: { [Labels.managed]: 'true' },
  },
  spec: {
    displayName: 'Memcached Operator',
    version: '0.0.2',
    release: '1',
    replaces: 'memcached-operator.v0.0.1',
    installModes: [
      { type: InstallModeTypes.OwnNamespace, supported: true },
      { type: InstallModeTypes.SingleNamespace, supported: true },
      { type: InstallModeTypes.MultiNamespace, supported: false },
      { type: InstallModeTypes.AllNamespaces, supported: true },
    ],
    customresourcedefinitions: { owned: [{ name: 'memcacheds.cache.example.com', version: 'v1', kind: 'Memcached', specDescriptors: [{ path: 'size', value: 3 }] }] },
    webhookdefinitions: [
      {
        generateName: 'mmemcached.kb.io',
        type: WebhookAdmissionTypes.MutatingAdmissionWebhook,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        containerPort: 443,
        targetPort: 9443,
        deploymentName: 'memcached-operator',
      },
    ],
    install: {
      strategy: InstallStrategyNameDeployment,
      spec: {
        deployments: [{ name: 'memcached-operator', spec: { replicas: 1, selector: { matchLabels: { app: 'memcached' } }, template: { spec: { containers: [] } } } }],
        clusterPermissions: [{ serviceAccountName: 'memcached-operator', rules: [{ apiGroups: ['cache.example.com'], resources: ['memcacheds'], verbs: ['*'] }] }],
      },
    },
  },
  status: {
    phase: CSVPhases.Succeeded,
    reason: CSVReasons.InstallSuccessful,
    message: 'install strategy completed with no errors',
    lastUpdateTime: now,
    lastTransitionTime: now,
    conditions: [{ phase: CSVPhases.Pending, reason: CSVReasons.RequirementsUnknown, message: 'requirements not yet checked', lastUpdateTime: now, lastTransitionTime: now }],
  },
};

const subscription: Subscription = {
  apiVersion: ApiVersions.v1alpha1,
  kind: 'Subscription',
  metadata: { name: 'memcached', namespace: 'operators' },
  spec: { name: 'memcached', source: 'catalog', sourceNamespace: 'olm', installPlanApproval: Approvals.Automatic, config: { env: [{ name: 'LOG_LEVEL', value: 'debug' }] } },
  status: {
    state: SubscriptionStates.AtLatest,
    currentCSV: 'memcached-operator.v0.0.2',
    installedCSV: 'memcached-operator.v0.0.2',
    conditions: [{ type: SubscriptionConditionTypes.CatalogSourcesUnhealthy, status: 'False', reason: SubscriptionReasons.AllCatalogSourcesHealthy }],
    lastUpdated: now,
  },
};

const installPlan: InstallPlan = {
  apiVersion: ApiVersions.v1alpha1,
  kind: 'InstallPlan',
  metadata: { name: 'install-abcde', namespace: 'operators' },
  spec: { clusterServiceVersionNames: ['memcached-operator.v0.0.2'], approval: Approvals.Automatic, approved: true, generation: 1 },
  status: {
    phase: InstallPlanPhases.Complete,
    catalogSources: [],
    conditions: [{ type: InstallPlanConditionTypes.Installed, status: 'True', lastUpdateTime: now, lastTransitionTime: now }],
    plan: [
      {
        resolving: 'memcached-operator.v0.0.2',
        status: StepStatuses.WaitingForAPI,
        resource: { sourceName: 'catalog', sourceNamespace: 'olm', group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', name: 'memcacheds.cache.example.com' },
      },
    ],
  },
};

const catalogSource: CatalogSource = {
  apiVersion: ApiVersions.v1alpha1,
  kind: 'CatalogSource',
  metadata: { name: 'catalog', namespace: 'olm' },
  spec: { sourceType: SourceTypes.Grpc, image: 'example.com/catalog:v1', grpcPodConfig: { securityContextConfig: SecurityContextConfigs.Restricted, memoryTarget: '64Mi' } },
};

const operatorGroup: OperatorGroup = {
  apiVersion: ApiVersions.v1,
  kind: 'OperatorGroup',
  metadata: { name: 'og', namespace: 'operators' },
  spec: { upgradeStrategy: UpgradeStrategies.UnsafeFailForward, selector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] } },
  status: { namespaces: ['a'], lastUpdated: now },
};

const operatorCondition: OperatorCondition = {
  apiVersion: ApiVersions.v2,
  kind: 'OperatorCondition',
  metadata: { name: 'memcached-operator.v0.0.2', namespace: 'operators' },
  spec: {
    conditions: [{ type: OperatorConditionTypes.Upgradeable, status: 'False', reason: 'Migrating', message: 'wait', lastTransitionTime: now }],
    overrides: [{ type: OperatorConditionTypes.Upgradeable, status: 'True', reason: 'AdminOverride', message: 'approved' }],
  },
};

const operator: Operator = {
  apiVersion: ApiVersions.v1,
  kind: 'Operator',
  metadata: { name: 'memcached.operators' },
  status: { components: { labelSelector: { matchLabels: { 'operators.coreos.com/memcached.operators': '' } } } },
};

const olmConfig: OLMConfig = { apiVersion: ApiVersions.v1, kind: 'OLMConfig', metadata: { name: 'cluster' }, spec: { features: { disableCopiedCSVs: true } } };

describe('typed objects', () => {
  const all: OperatorsResource[] = [csv, subscription, installPlan, catalogSource, operatorGroup, operatorCondition, operator, olmConfig];

  it('validate clean against the CRD schemas, with nothing pruned', () => {
    for (const object of all) {
      expect(validateResource(object), object.kind).toEqual([]);
      expect(admitResource(object).unknownFields, object.kind).toEqual([]);
    }
  });

  it('narrow on kind', () => {
    const phases = all.map((object) => (object.kind === 'ClusterServiceVersion' ? object.status?.phase : object.kind));
    expect(phases[0]).toBe('Succeeded');
  });

  it('still catch a wrong value the types allow (free-form strings)', () => {
    const broken: Subscription = { ...subscription, status: { ...subscription.status, lastUpdated: 'not a time' } as Subscription['status'] };
    expect(validateResource(broken).map((error) => error.field)).toEqual(['status.lastUpdated']);
  });
});

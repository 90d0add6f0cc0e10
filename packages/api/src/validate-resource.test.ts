import { formatFieldErrors } from '@olm/structural-schema';
import { describe, expect, it } from 'vitest';
import type { Subscription } from './subscription.js';
import { admitResource, defaultResource, pruneResource, validateResource } from './validate-resource.js';

const subscription = (spec: Record<string, unknown>): unknown => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'Subscription',
  metadata: { name: 'etcd', namespace: 'operators' },
  spec,
});

describe('validateResource', () => {
  it('accepts a minimal valid object of each kind', () => {
    const minimal = [
      subscription({ name: 'etcd', source: 'catalog', sourceNamespace: 'olm' }),
      { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', metadata: { name: 'c' }, spec: { sourceType: 'grpc', address: 'registry:50051' } },
      { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan', metadata: { name: 'i' }, spec: { clusterServiceVersionNames: [], approval: 'Automatic', approved: true } },
      {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'ClusterServiceVersion',
        metadata: { name: 'x.v1' },
        spec: { displayName: 'X', install: { strategy: 'deployment', spec: { deployments: [] } } },
      },
      { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og' } },
      { apiVersion: 'operators.coreos.com/v1alpha2', kind: 'OperatorGroup', metadata: { name: 'og' }, spec: {} },
      { apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition', metadata: { name: 'x.v1' } },
      { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorCondition', metadata: { name: 'x.v1' } },
      { apiVersion: 'operators.coreos.com/v1', kind: 'Operator', metadata: { name: 'x.ns' } },
      { apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', metadata: { name: 'cluster' } },
    ];
    for (const object of minimal) expect(validateResource(object), JSON.stringify(object)).toEqual([]);
  });

  it('reports path-qualified errors that format like the API server', () => {
    const errors = validateResource(subscription({ name: 'etcd', source: 'catalog', config: { tolerations: [{ tolerationSeconds: 'soon' }] } }));
    expect(formatFieldErrors('Subscription.operators.coreos.com', 'etcd', errors)).toBe(
      'Subscription.operators.coreos.com "etcd" is invalid: [spec.sourceNamespace: Required value, spec.config.tolerations[0].tolerationSeconds: Invalid value: "string": spec.config.tolerations[0].tolerationSeconds in body must be of type integer: "string"]',
    );
  });

  it('explains unknown kinds, unserved versions and missing type information instead of throwing', () => {
    expect(validateResource({ apiVersion: 'apps/v1', kind: 'Deployment' })).toEqual([
      expect.objectContaining({ field: 'kind', type: 'FieldValueNotSupported', message: expect.stringContaining('Unsupported value: "Deployment": supported values: "CatalogSource"') }),
    ]);
    expect(validateResource({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'OperatorGroup' })).toEqual([
      {
        field: 'apiVersion',
        type: 'FieldValueNotSupported',
        message: 'Unsupported value: "operators.coreos.com/v1alpha1": supported values: "operators.coreos.com/v1", "operators.coreos.com/v1alpha2"',
        value: 'operators.coreos.com/v1alpha1',
      },
    ]);
    expect(validateResource({ metadata: { name: 'x' } })).toEqual([
      { field: 'apiVersion', type: 'FieldValueRequired', message: 'Required value' },
      { field: 'kind', type: 'FieldValueRequired', message: 'Required value' },
    ]);
    expect(validateResource('csv')).toEqual([
      { field: '', type: 'FieldValueTypeInvalid', message: 'Invalid value: "string": must be an object with apiVersion and kind', value: 'csv' },
    ]);
    expect(validateResource(null)).toHaveLength(1);
    expect(validateResource([])).toHaveLength(1);
  });
});

describe('pruneResource / defaultResource / admitResource', () => {
  it('prunes unknown fields and reports them', () => {
    const result = pruneResource(subscription({ name: 'etcd', source: 'c', sourceNamespace: 'olm', approval: 'Manual' }));
    expect(result.unknownFields).toEqual(['spec.approval']);
    expect(result.object).toEqual(subscription({ name: 'etcd', source: 'c', sourceNamespace: 'olm' }));
  });

  it('applies the CRD defaults (OperatorGroup upgrade strategy, webhook port, catalog security context)', () => {
    expect(defaultResource({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og' } })).toEqual({
      apiVersion: 'operators.coreos.com/v1',
      kind: 'OperatorGroup',
      metadata: { name: 'og' },
      spec: { upgradeStrategy: 'Default' },
    });
    const csv = defaultResource({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'x.v1' },
      spec: { displayName: 'X', install: { strategy: 'deployment' }, webhookdefinitions: [{ generateName: 'w', type: 'MutatingAdmissionWebhook' }] },
    }) as { spec: { webhookdefinitions: { containerPort?: number }[] } };
    expect(csv.spec.webhookdefinitions[0]?.containerPort).toBe(443);
    const typed: Subscription = defaultResource<Subscription>({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { name: 's' },
      spec: { name: 'p', source: 'c', sourceNamespace: 'olm' },
    });
    expect(typed.spec.installPlanApproval).toBeUndefined();
  });

  it('throws OLM_API_UNKNOWN_RESOURCE with the reason for objects it cannot place', () => {
    expect(() => pruneResource({ apiVersion: 'v1', kind: 'Pod' })).toThrow(
      expect.objectContaining({ code: 'OLM_API_UNKNOWN_RESOURCE', message: expect.stringMatching(/^not an operators\.coreos\.com resource: kind: Unsupported value: "Pod"/) }),
    );
    expect(() => defaultResource({ kind: 'Subscription' })).toThrow(
      expect.objectContaining({ code: 'OLM_API_UNKNOWN_RESOURCE', message: expect.stringContaining('apiVersion: Required value') }),
    );
  });

  it('admits like the API server: prune, default, then validate', () => {
    const result = admitResource({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og' }, spec: { selector: { matchLabels: { a: 1 } }, extra: true } });
    expect(result.unknownFields).toEqual(['spec.extra']);
    expect(result.object).toMatchObject({ spec: { upgradeStrategy: 'Default' } });
    expect(result.errors.map((error) => error.field)).toEqual(['spec.selector.matchLabels.a']);
    expect(admitResource({ kind: 'Nope' }).errors.map((error) => error.field)).toEqual(['apiVersion']);
  });
});

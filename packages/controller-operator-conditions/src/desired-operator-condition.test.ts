import { describe, expect, it } from 'vitest';
import { desiredOperatorCondition, isCopiedCsv, operatorServiceAccounts, reconciledOperatorCondition, type CsvForOperatorCondition } from './desired-operator-condition.js';

const csv = (strategy: Record<string, unknown>, labels?: Record<string, string>): CsvForOperatorCondition => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'db.v1', namespace: 'team', uid: 'uid-1', ...(labels ? { labels } : {}) },
  spec: { install: { spec: strategy } },
});

describe('the OperatorCondition of a CSV', () => {
  it('names the deployments and the service accounts of cluster permissions, then permissions, each once', () => {
    const desired = desiredOperatorCondition(
      csv({
        deployments: [{ name: 'db-operator' }, { name: 'db-webhook' }],
        clusterPermissions: [{ serviceAccountName: 'db-cluster' }, { serviceAccountName: 'db' }],
        permissions: [{ serviceAccountName: 'db' }, { serviceAccountName: '' }],
      }),
    );
    expect(desired).toEqual({
      apiVersion: 'operators.coreos.com/v2',
      kind: 'OperatorCondition',
      metadata: {
        name: 'db.v1',
        namespace: 'team',
        ownerReferences: [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'db.v1', uid: 'uid-1', controller: false, blockOwnerDeletion: true }],
      },
      spec: { deployments: ['db-operator', 'db-webhook'], serviceAccounts: ['db-cluster', 'db'] },
    });
  });

  it('uses the default ServiceAccount when the CSV asks for no permissions, and tolerates a CSV without a strategy', () => {
    expect(operatorServiceAccounts(csv({ deployments: [] }))).toEqual(['default']);
    const bare: CsvForOperatorCondition = { metadata: { name: 'x', namespace: 'n', uid: 'u' } };
    expect(desiredOperatorCondition(bare).spec).toEqual({ deployments: [], serviceAccounts: ['default'] });
  });

  it('skips copies', () => {
    expect(isCopiedCsv(csv({}, { 'olm.copiedFrom': 'team' }))).toBe(true);
    expect(isCopiedCsv(csv({}))).toBe(false);
  });

  it('updates only the generated fields, keeping overrides, conditions and other owners; nothing when current', () => {
    const desired = desiredOperatorCondition(csv({ deployments: [{ name: 'db-operator' }], permissions: [{ serviceAccountName: 'db' }] }));
    expect(reconciledOperatorCondition(structuredClone(desired), desired)).toBeUndefined();
    const override = { type: 'Upgradeable', status: 'True' as const, reason: 'Admin', message: 'go' };
    const stale = {
      ...structuredClone(desired),
      metadata: {
        ...desired.metadata,
        ownerReferences: [
          { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'db.v1', uid: 'uid-old' },
          { apiVersion: 'example.com/v1', kind: 'Audit', name: 'a', uid: 'uid-audit' },
        ],
      },
      spec: { deployments: ['old'], serviceAccounts: ['db'], overrides: [override] },
    };
    const next = reconciledOperatorCondition(stale, desired)!;
    expect(next.metadata.ownerReferences?.map((reference) => reference.uid)).toEqual(['uid-audit', 'uid-1']);
    expect(next.spec).toEqual({ deployments: ['db-operator'], serviceAccounts: ['db'], overrides: [override] });
  });
});

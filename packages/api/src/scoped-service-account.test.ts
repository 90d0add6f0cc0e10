import { describe, expect, it } from 'vitest';
import type { OperatorGroup } from './operator-group.js';
import { installIdentity, serviceAccountUsername } from './scoped-service-account.js';

function group(name: string, options: { account?: string; namespaces?: string[]; synced?: string } = {}): OperatorGroup {
  return {
    apiVersion: 'operators.coreos.com/v1',
    kind: 'OperatorGroup',
    metadata: { name, namespace: 'team' },
    spec: { ...(options.account ? { serviceAccountName: options.account } : {}) },
    status: {
      lastUpdated: '2026-01-01T00:00:00Z',
      ...(options.namespaces ? { namespaces: options.namespaces } : {}),
      ...(options.synced ? { serviceAccountRef: { kind: 'ServiceAccount', namespace: 'team', name: options.synced, uid: 'u1' } } : {}),
    },
  };
}

describe('installIdentity (upstream UserDefinedServiceAccountQuerier)', () => {
  it("is OLM's own when no group names an account, whatever else is wrong", () => {
    expect(installIdentity([])).toEqual({ kind: 'olm' });
    expect(installIdentity([group('a', { namespaces: ['team'] })])).toEqual({ kind: 'olm' });
    expect(installIdentity([group('a'), group('b')])).toEqual({ kind: 'olm' });
  });

  it('is the synced ServiceAccount of the one managing group, as its user', () => {
    expect(installIdentity([group('a', { account: 'installer', namespaces: ['team'], synced: 'installer' })])).toEqual({
      kind: 'serviceAccount',
      reference: { kind: 'ServiceAccount', namespace: 'team', name: 'installer', uid: 'u1' },
      username: 'system:serviceaccount:team:installer',
    });
    expect(serviceAccountUsername('ns', 'sa')).toBe('system:serviceaccount:ns:sa');
  });

  it("reports upstream's errors: no managing group, several, an account not (yet) synced", () => {
    expect(installIdentity([group('a', { account: 'installer' })])).toEqual({ kind: 'error', message: 'no operator group found that is managing this namespace' });
    expect(installIdentity([group('a', { account: 'installer', namespaces: ['team'] }), group('b', { namespaces: [''] })])).toEqual({
      kind: 'error',
      message: 'more than one operator group(s) are managing this namespace count=2',
    });
    expect(installIdentity([group('a', { account: 'installer', namespaces: ['team'] })])).toEqual({
      kind: 'error',
      message: 'please make sure the service account exists. sa=installer operatorgroup=team/a',
    });
    // The reference still names the account the group used to name.
    expect(installIdentity([group('a', { account: 'installer', namespaces: ['team'], synced: 'old' })])).toMatchObject({ kind: 'error' });
  });

  it('ignores a group that manages no namespace, as upstream', () => {
    expect(installIdentity([group('idle', { account: 'x' }), group('a', { namespaces: ['team'] })])).toEqual({ kind: 'olm' });
  });
});

import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { makeCsv } from '../test/support.js';
import { readIdentity, readInstallPermissions, readPolicyRule } from './csv-input.js';
import { RbacErrorCodes } from './errors.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return hasErrorCode(error) ? error.code : 'not an OlmError';
  }
  return undefined;
}

describe('readInstallPermissions', () => {
  it('reads permissions and clusterPermissions, keeping only the five rule fields and non-empty lists', () => {
    const csv = makeCsv({
      permissions: [{ serviceAccountName: 'sa', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [], extra: 1 }] }],
      clusterPermissions: [{ serviceAccountName: 'sa', rules: null }],
    });
    expect(readInstallPermissions(csv)).toEqual({
      permissions: [{ serviceAccountName: 'sa', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }],
      clusterPermissions: [{ serviceAccountName: 'sa', rules: undefined }],
    });
  });

  it('treats absent lists and an absent strategy spec as no permissions', () => {
    expect(readInstallPermissions(makeCsv({}))).toEqual({ permissions: [], clusterPermissions: [] });
    const noSpec = { ...makeCsv({}), spec: { install: { strategy: 'deployment' } } };
    expect(readInstallPermissions(noSpec)).toEqual({ permissions: [], clusterPermissions: [] });
  });

  it('rejects a CSV without an install strategy, or with another strategy', () => {
    expect(codeOf(() => readInstallPermissions({ ...makeCsv({}), spec: {} }))).toBe(RbacErrorCodes.missingInstallStrategy);
    expect(codeOf(() => readInstallPermissions({ ...makeCsv({}), spec: undefined }))).toBe(RbacErrorCodes.missingInstallStrategy);
    expect(codeOf(() => readInstallPermissions({ ...makeCsv({}), spec: { install: { strategy: 'helm', spec: {} } } }))).toBe(
      RbacErrorCodes.unsupportedInstallStrategy,
    );
  });

  it('rejects malformed permission entries', () => {
    expect(codeOf(() => readInstallPermissions(makeCsv({ permissions: {} })))).toBe(RbacErrorCodes.invalidPermission);
    expect(codeOf(() => readInstallPermissions(makeCsv({ permissions: [{ rules: [] }] })))).toBe(RbacErrorCodes.invalidPermission);
    expect(codeOf(() => readInstallPermissions(makeCsv({ clusterPermissions: [{ serviceAccountName: 'sa', rules: 'all' }] })))).toBe(
      RbacErrorCodes.invalidPermission,
    );
  });

  it('says where a bad rule is', () => {
    const csv = makeCsv({ permissions: [{ serviceAccountName: 'sa', rules: [{ apiGroups: [''], resources: ['pods'] }] }] });
    expect(() => readInstallPermissions(csv)).toThrow(
      'ClusterServiceVersion "etcdoperator.v0.9.4": spec.install.spec.permissions[0].rules[0] (service account "sa"): verbs must contain at least one value',
    );
  });
});

describe('readPolicyRule', () => {
  const read = (rule: unknown, scope: 'namespaced' | 'cluster' = 'namespaced') => () => readPolicyRule(rule, scope, 'rule');

  it('rejects what the API server rejects', () => {
    expect(codeOf(read({ verbs: [], apiGroups: [''], resources: ['pods'] }))).toBe(RbacErrorCodes.invalidRule);
    expect(codeOf(read({ verbs: ['get'], resources: ['pods'] }))).toBe(RbacErrorCodes.invalidRule);
    expect(codeOf(read({ verbs: ['get'], apiGroups: [''] }))).toBe(RbacErrorCodes.invalidRule);
    expect(codeOf(read({ verbs: ['get'], nonResourceURLs: ['/metrics'] }))).toBe(RbacErrorCodes.invalidRule);
    expect(codeOf(read({ verbs: ['get'], nonResourceURLs: ['/metrics'], resources: ['pods'] }, 'cluster'))).toBe(RbacErrorCodes.invalidRule);
    expect(codeOf(read({ verbs: ['get', 3], apiGroups: [''], resources: ['pods'] }))).toBe(RbacErrorCodes.invalidRule);
    expect(codeOf(read('get pods'))).toBe(RbacErrorCodes.invalidRule);
  });

  it('accepts non-resource URLs in cluster permissions', () => {
    expect(read({ verbs: ['get'], nonResourceURLs: ['/metrics'] }, 'cluster')()).toEqual({ verbs: ['get'], nonResourceURLs: ['/metrics'] });
  });
});

describe('readIdentity', () => {
  it('needs a name and a namespace', () => {
    expect(readIdentity(makeCsv({ uid: 'u1' }), 'CSV')).toEqual({ name: 'etcdoperator.v0.9.4', namespace: 'operators', uid: 'u1' });
    expect(codeOf(() => readIdentity({ apiVersion: 'v1', kind: 'X', metadata: { name: 'x' } }, 'CSV'))).toBe(RbacErrorCodes.invalidObject);
    expect(codeOf(() => readIdentity({ apiVersion: 'v1', kind: 'X', metadata: {} }, 'CSV'))).toBe(RbacErrorCodes.invalidObject);
    expect(codeOf(() => readIdentity(null as never, 'CSV'))).toBe(RbacErrorCodes.invalidObject);
  });
});

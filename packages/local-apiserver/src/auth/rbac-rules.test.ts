import { describe, expect, it } from 'vitest';
import { compactRules, compactRuleString, ruleAllows, uncoveredRules, type PolicyRule } from './rbac-rules.js';
import { nonResourceAttributes, requestAttributes } from './request-info.js';

const allows = (rule: PolicyRule, method: string, url: string): boolean => ruleAllows(requestAttributes(method, url), rule);

describe('RBAC rule matching (kube RuleAllows)', () => {
  it('matches verbs, groups and resources, with * for all', () => {
    const rule = { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] };
    expect(allows(rule, 'GET', '/apis/apps/v1/namespaces/a/deployments/web')).toBe(true);
    expect(allows(rule, 'GET', '/apis/apps/v1/deployments')).toBe(true);
    expect(allows(rule, 'DELETE', '/apis/apps/v1/namespaces/a/deployments/web')).toBe(false);
    expect(allows(rule, 'GET', '/apis/apps/v1/namespaces/a/replicasets/web')).toBe(false);
    expect(allows(rule, 'GET', '/api/v1/namespaces/a/pods/web')).toBe(false);
    expect(allows({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, 'PATCH', '/apis/example.com/v1/widgets/w')).toBe(true);
  });

  it('matches subresources exactly or through */sub, never through the resource alone', () => {
    expect(allows({ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }, 'GET', '/apis/apps/v1/namespaces/a/deployments/web/scale')).toBe(false);
    expect(allows({ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] }, 'GET', '/apis/apps/v1/namespaces/a/deployments/web/scale')).toBe(true);
    expect(allows({ verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }, 'GET', '/apis/apps/v1/namespaces/a/replicasets/web/scale')).toBe(true);
    expect(allows({ verbs: ['get'], apiGroups: ['apps'], resources: ['*/status'] }, 'GET', '/apis/apps/v1/namespaces/a/replicasets/web/scale')).toBe(false);
  });

  it('constrains named requests with resourceNames, and not requests without a name', () => {
    const rule = { verbs: ['get', 'list', 'create'], apiGroups: [''], resources: ['secrets'], resourceNames: ['shared'] };
    expect(allows(rule, 'GET', '/api/v1/namespaces/a/secrets/shared')).toBe(true);
    expect(allows(rule, 'GET', '/api/v1/namespaces/a/secrets/other')).toBe(false);
    // A list is a request without a name: resourceNames cannot allow it, unless the field selector names one.
    expect(allows(rule, 'GET', '/api/v1/namespaces/a/secrets')).toBe(false);
    expect(allows(rule, 'GET', '/api/v1/namespaces/a/secrets?fieldSelector=metadata.name%3Dshared')).toBe(true);
    expect(allows(rule, 'POST', '/api/v1/namespaces/a/secrets')).toBe(false);
  });

  it('matches non-resource URLs exactly or by a trailing *', () => {
    const rule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
    expect(ruleAllows(nonResourceAttributes('get', '/healthz'), rule)).toBe(true);
    expect(ruleAllows(nonResourceAttributes('get', '/healthz/etcd'), rule)).toBe(false);
    expect(ruleAllows(nonResourceAttributes('get', '/apis/apps'), rule)).toBe(true);
    expect(ruleAllows(nonResourceAttributes('post', '/healthz'), rule)).toBe(false);
    expect(ruleAllows(nonResourceAttributes('get', '/healthz'), { verbs: ['get'], apiGroups: ['*'], resources: ['*'] })).toBe(false);
  });
});

describe('coverage (escalation checks)', () => {
  it('finds what owner rules do not cover, down to verbs, resources and names', () => {
    const owner: PolicyRule[] = [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', '*/status'] },
      { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
    ];
    expect(uncoveredRules(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps', 'pods/status'] }])).toEqual([]);
    expect(uncoveredRules(owner, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['configmaps'] }])).toEqual([{ verbs: ['delete'], apiGroups: [''], resources: ['configmaps'] }]);
    expect(uncoveredRules(owner, [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }])).toEqual([]);
    // Owning one name does not cover all names.
    expect(uncoveredRules(owner, [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'] }])).toHaveLength(1);
    expect(uncoveredRules(owner, [{ verbs: ['get'], nonResourceURLs: ['/apis/apps', '/metrics'] }])).toEqual([{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]);
  });

  it('compacts missing rules by resource and prints them as kube-apiserver', () => {
    const missing = uncoveredRules([], [{ verbs: ['get', 'list'], apiGroups: ['', 'apps'], resources: ['pods'] }, { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }]);
    expect(compactRules(missing).map(compactRuleString)).toEqual([
      '{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
      '{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "list"]}',
    ]);
    expect(compactRuleString({ verbs: ['get'], nonResourceURLs: ['/metrics'] })).toBe('{NonResourceURLs:["/metrics"], Verbs:["get"]}');
  });
});

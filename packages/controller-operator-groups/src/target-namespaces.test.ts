import { describe, expect, it } from 'vitest';
import { matchesLabelSelector } from '@olm/label-selector';
import { resolveTargetNamespaces, sameNamespaceSet, type NamespaceLabels } from './target-namespaces.js';

const namespaces: NamespaceLabels[] = [
  { name: 'prod-a', labels: { env: 'prod', team: 'a' } },
  { name: 'prod-b', labels: { env: 'prod', team: 'b' } },
  { name: 'dev', labels: { env: 'dev' } },
  { name: 'bare' },
];

describe('OperatorGroup target namespaces', () => {
  it('uses the explicit list and ignores the selector', () => {
    expect(resolveTargetNamespaces({ targetNamespaces: ['b', 'a', 'a'], selector: { matchLabels: { env: 'dev' } } }, namespaces)).toEqual([
      'a',
      'b',
    ]);
  });

  it('targets all namespaces without a selector or with an empty one', () => {
    expect(resolveTargetNamespaces({}, namespaces)).toEqual(['']);
    expect(resolveTargetNamespaces({ selector: {} }, namespaces)).toEqual(['']);
  });

  it('selects by labels and expressions', () => {
    expect(resolveTargetNamespaces({ selector: { matchLabels: { env: 'prod' } } }, namespaces)).toEqual(['prod-a', 'prod-b']);
    expect(
      resolveTargetNamespaces(
        { selector: { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['a'] }] } },
        namespaces,
      ),
    ).toEqual(['bare', 'dev', 'prod-b']);
    expect(resolveTargetNamespaces({ selector: { matchLabels: { env: 'staging' } } }, namespaces)).toEqual([]);
  });

  it('refuses "" in an explicit list', () => {
    expect(() => resolveTargetNamespaces({ targetNamespaces: ['a', ''] }, namespaces)).toThrow(/must not contain ""/);
  });

  it('matches selector operators as Kubernetes does and fails closed on unknown ones', () => {
    const labels = { tier: 'web' };
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'db'] }] }, labels)).toBe(true);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, labels)).toBe(true);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, labels)).toBe(false);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'Gt', values: ['1'] }] }, labels)).toBe(false);
  });

  it('compares target sets ignoring order', () => {
    expect(sameNamespaceSet(['b', 'a'], ['a', 'b'])).toBe(true);
    expect(sameNamespaceSet(['a'], ['a', 'b'])).toBe(false);
  });
});

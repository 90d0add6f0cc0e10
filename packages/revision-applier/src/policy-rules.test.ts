import { describe, expect, it } from 'vitest';
import { allows, uncoveredPermissions } from './policy-rules.js';

describe('policy rules', () => {
  const held = [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
    { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments', 'replicasets/*'] },
    { verbs: ['update'], apiGroups: [''], resources: ['secrets'], resourceNames: ['one'] },
    { verbs: ['get'], nonResourceURLs: ['/healthz/*'] },
  ];

  it('allows a request when one rule matches verb, group, resource and name', () => {
    expect(allows(held, { verb: 'list', group: '', resource: 'configmaps' })).toBe(true);
    expect(allows(held, { verb: 'delete', group: '', resource: 'configmaps' })).toBe(false);
    expect(allows(held, { verb: 'delete', group: 'apps', resource: 'deployments', name: 'x' })).toBe(true);
    expect(allows(held, { verb: 'get', group: 'apps', resource: 'replicasets/scale' })).toBe(true);
    expect(allows(held, { verb: 'get', group: 'apps', resource: 'deployments/scale' })).toBe(false);
    expect(allows(held, { verb: 'update', group: '', resource: 'secrets', name: 'one' })).toBe(true);
    // resourceNames never allow a request on the collection.
    expect(allows(held, { verb: 'update', group: '', resource: 'secrets' })).toBe(false);
    expect(allows(held, { verb: 'get', group: '', resource: '', nonResourceURL: '/healthz/ping' })).toBe(true);
    expect(allows(held, { verb: 'get', group: '', resource: '', nonResourceURL: '/metrics' })).toBe(false);
  });

  it('lists the parts of granted rules not held, a granted * needing a held *', () => {
    const granted = [
      { verbs: ['get', 'watch'], apiGroups: [''], resources: ['configmaps'] },
      { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'] },
      { verbs: ['*'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['update'], apiGroups: [''], resources: ['secrets'], resourceNames: ['one', 'two'] },
    ];
    expect(uncoveredPermissions(held, granted)).toEqual([
      { verb: 'watch', group: '', resource: 'configmaps' },
      { verb: '*', group: '', resource: 'pods' },
      { verb: 'update', group: '', resource: 'secrets', name: 'two' },
    ]);
  });
});

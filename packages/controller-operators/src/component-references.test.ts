import { describe, expect, it } from 'vitest';
import { componentKinds } from './component-kinds.js';
import { componentConditions, operatorComponents } from './component-references.js';

const kind = (name: string) => componentKinds.find((each) => each.kind === name)!;

describe('component references', () => {
  it('projects a CSV\'s phase into one condition, as upstream', () => {
    const csv = {
      kind: 'ClusterServiceVersion',
      status: { phase: 'Succeeded', reason: 'InstallSucceeded', message: 'install strategy completed with no errors', lastUpdateTime: '2026-01-01T00:00:01Z', lastTransitionTime: '2026-01-01T00:00:00Z', conditions: [{ phase: 'Pending' }] },
    };
    expect(componentConditions(csv)).toEqual([
      { type: 'Succeeded', status: 'True', reason: 'InstallSucceeded', message: 'install strategy completed with no errors', lastUpdateTime: '2026-01-01T00:00:01Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ]);
    expect(componentConditions({ kind: 'ClusterServiceVersion' })).toEqual([]);
  });

  it('copies other components\' status conditions, keeping only the fields the schema has and dropping malformed ones', () => {
    const deployment = {
      kind: 'Deployment',
      status: {
        conditions: [
          { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: '', lastUpdateTime: '2026-01-01T00:00:00Z', observedGeneration: 3 },
          { status: 'True' },
          'junk',
        ],
      },
    };
    expect(componentConditions(deployment)).toEqual([{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', lastUpdateTime: '2026-01-01T00:00:00Z' }]);
    expect(componentConditions({ kind: 'Secret' })).toEqual([]);
  });

  it('lists references by kind, namespace and name, namespaced ones with their namespace, conditions only when there are some', () => {
    const components = operatorComponents('db.team', [
      { kind: kind('Secret'), object: { metadata: { name: 'b', namespace: 'team' } } },
      { kind: kind('CustomResourceDefinition'), object: { metadata: { name: 'dbs.example.com' }, status: { conditions: [{ type: 'Established', status: 'True' }] } } },
      { kind: kind('Secret'), object: { metadata: { name: 'a', namespace: 'team' } } },
      { kind: kind('Subscription'), object: { metadata: { name: 'db', namespace: 'team' } } },
    ]);
    expect(components).toEqual({
      labelSelector: { matchExpressions: [{ key: 'operators.coreos.com/db.team', operator: 'Exists' }] },
      refs: [
        { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', name: 'db', namespace: 'team' },
        { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'dbs.example.com', conditions: [{ type: 'Established', status: 'True' }] },
        { apiVersion: 'v1', kind: 'Secret', name: 'a', namespace: 'team' },
        { apiVersion: 'v1', kind: 'Secret', name: 'b', namespace: 'team' },
      ],
    });
    expect(operatorComponents('db.team', [])).toEqual({ labelSelector: { matchExpressions: [{ key: 'operators.coreos.com/db.team', operator: 'Exists' }] } });
  });
});

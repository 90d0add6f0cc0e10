import { describe, expect, it } from 'vitest';
import type { Json } from './json.js';
import { formatUpgradeChanges, upgradeChanges } from './upgrade-changes.js';

const csv = (name: string, rules: unknown[], image: string): Json => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name },
  spec: {
    install: {
      spec: {
        clusterPermissions: [{ serviceAccountName: 'operator', rules }],
        deployments: [{ name: 'operator', spec: { template: { spec: { containers: [{ name: 'manager', image }] } } } }],
      },
    },
  },
});
const crd = (versions: Record<string, Record<string, unknown>>): Json => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'things.example.com' },
  spec: { versions: Object.entries(versions).map(([name, properties]) => ({ name, schema: { openAPIV3Schema: { type: 'object', properties } } })) },
});
const planOf = (...manifests: Json[]): Json => ({
  status: { plan: manifests.map((manifest) => ({ resolving: 'thing.v2', resource: { kind: manifest.kind, name: manifest.metadata!.name, manifest: JSON.stringify(manifest) } })) },
});

describe('upgradeChanges', () => {
  it('lists permissions and images added and removed, and CRD versions and fields', () => {
    const from = csv('thing.v1', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }], 'example.com/thing:v1');
    const to = csv('thing.v2', [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get'] }], 'example.com/thing:v2');
    const live = crd({ v1: { spec: { type: 'object', properties: { size: { type: 'integer' }, mode: { type: 'string' } } } } });
    const next = crd({ v1: { spec: { type: 'object', properties: { size: { type: 'string' }, replicas: { type: 'integer' } } } }, v2: {} });
    const changes = upgradeChanges(planOf(to, next), 'thing.v2', from, new Map([['things.example.com', live]]));
    expect(changes.permissions).toEqual({ added: ['cluster operator: get core/secrets'], removed: ['cluster operator: list core/configmaps'] });
    expect(changes.images).toEqual({ added: ['example.com/thing:v2'], removed: ['example.com/thing:v1'] });
    expect(changes.crds).toEqual([
      {
        name: 'things.example.com',
        changes: ['version v2 added', 'field v1: .spec.size changed type from integer to string', 'field v1: .spec.replicas added (integer)', 'field v1: .spec.mode removed'],
      },
    ]);
    expect(formatUpgradeChanges(changes)).toContain('permissions:\n  + cluster operator: get core/secrets\n  - cluster operator: list core/configmaps');
  });

  it('says what it cannot show: a manifest the plan does not carry (image-only bundles), a CRD that is new', () => {
    const plan = { status: { plan: [{ resolving: 'thing.v2', resource: { kind: 'ClusterServiceVersion', name: 'thing.v2', manifest: '{"kind":"ConfigMap"}' } }, { resolving: 'thing.v2', resource: { kind: 'CustomResourceDefinition', name: 'things.example.com', manifest: JSON.stringify(crd({ v1: {} })) } }] } };
    const changes = upgradeChanges(plan, 'thing.v2', undefined, new Map());
    expect(changes.unknown).toEqual(['ClusterServiceVersion thing.v2']);
    expect(changes.crds).toEqual([{ name: 'things.example.com', changes: ['new CRD'] }]);
  });
});

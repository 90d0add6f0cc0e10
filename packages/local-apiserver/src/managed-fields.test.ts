import { describe, expect, it } from 'vitest';
import { StatusError } from './errors.js';
import type { KubeObject } from './kube-object.js';
import { fieldSetFromTree, fieldSetToTree, fieldsOf, recordUpdate, serverSideApply, sortManagedFields, type ListKeys } from './managed-fields.js';

const listKeys: ListKeys = (path) => {
  const field = path[path.length - 1];
  if (field === 'containers') return { type: 'map', keys: ['name'] };
  if (field === 'finalizers') return { type: 'set' };
  return undefined;
};

const apply = (live: KubeObject | undefined, applied: KubeObject, manager: string, force = false) =>
  serverSideApply({ live, applied, manager, force, apiVersion: 'apps/v1', listKeys });

describe('field sets', () => {
  it('round-trips FieldsV1 trees, with "." for associative list items and maps', () => {
    const object = { apiVersion: 'v1', kind: 'X', metadata: { name: 'x', labels: { a: 'b' }, finalizers: ['f'] }, spec: { containers: [{ name: 'c', image: 'i' }], args: ['x', 'y'], empty: {} } };
    const set = fieldsOf(object, listKeys);
    const tree = fieldSetToTree(set);
    expect(tree).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {} }, 'f:finalizers': { 'v:"f"': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:name': {}, 'f:image': {} } }, 'f:args': {}, 'f:empty': {} },
    });
    expect([...fieldSetFromTree(tree)].sort()).toEqual([...set].sort());
  });
});

describe('serverSideApply', () => {
  const base: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1, containers: [{ name: 'a', image: 'a:1' }] } };

  it('creates, then removes fields the manager stopped applying', () => {
    const created = apply(undefined, base, 'alice');
    expect(created.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'alice', operation: 'Apply' })]);
    const second = apply(created, { ...base, spec: { containers: [{ name: 'a', image: 'a:1' }] } }, 'alice');
    expect(second['spec']).toEqual({ containers: [{ name: 'a', image: 'a:1' }] });
  });

  it('keeps fields another manager also owns', () => {
    const created = apply(undefined, base, 'alice');
    const shared = apply(created, { ...base, spec: { replicas: 1 } }, 'bob');
    const withdrawn = apply(shared, { ...base, spec: { containers: [{ name: 'a', image: 'a:1' }] } }, 'alice');
    expect((withdrawn['spec'] as any).replicas).toBe(1);
  });

  it('reports conflicts with causes, and takes ownership with force', () => {
    const created = apply(undefined, base, 'alice');
    let caught: StatusError | undefined;
    try {
      apply(created, { ...base, spec: { replicas: 3 } }, 'bob');
    } catch (error) {
      caught = error as StatusError;
    }
    expect(caught?.code).toBe(409);
    expect(caught?.message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
    expect(caught?.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' }]);

    const forced = apply(created, { ...base, spec: { replicas: 3 } }, 'bob', true);
    expect((forced['spec'] as any).replicas).toBe(3);
    const alice = forced.metadata.managedFields?.find((entry) => entry.manager === 'alice');
    expect(alice?.fieldsV1).toEqual({ 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:image': {} } } } });
  });

  it('merges associative lists by key', () => {
    const created = apply(undefined, base, 'alice');
    const merged = apply(created, { ...base, spec: { containers: [{ name: 'b', image: 'b:1' }] } }, 'bob');
    expect((merged['spec'] as any).containers.map((c: any) => c.name)).toEqual(['a', 'b']);
  });

  it('lists several conflicts per manager', () => {
    const created = apply(undefined, base, 'alice');
    expect(() => apply(created, { ...base, spec: { replicas: 2, containers: [{ name: 'a', image: 'a:2' }] } }, 'bob')).toThrow(
      'Apply failed with 2 conflicts: conflicts with "alice":\n- .spec.replicas\n- .spec.containers[name="a"].image',
    );
  });
});

describe('recordUpdate', () => {
  it('gives changed fields to the updater and takes them from other managers', () => {
    const created = serverSideApply({ live: undefined, applied: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', b: '2' } } as KubeObject, manager: 'alice', force: false, apiVersion: 'v1', listKeys });
    const next = { ...created, data: { a: '9', b: '2' } } as KubeObject;
    const entries = recordUpdate({ previous: created, next, manager: 'kubectl-edit', apiVersion: 'v1', listKeys });
    expect(entries.map((entry) => [entry.manager, entry.operation, entry.fieldsV1])).toEqual([
      ['alice', 'Apply', { 'f:data': { 'f:b': {} } }],
      ['kubectl-edit', 'Update', { 'f:data': { 'f:a': {} } }],
    ]);
  });
});

describe('conflicts with Update managers', () => {
  it('names the manager with its apiVersion, as kube-apiserver does', () => {
    const live = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } } as KubeObject;
    live.metadata.managedFields = recordUpdate({ previous: undefined, next: live, manager: 'kubectl-client-side-apply', apiVersion: 'v1', listKeys });
    expect(() => serverSideApply({ live, applied: { ...live, metadata: { name: 'c' }, data: { a: '2' } } as KubeObject, manager: 'kubectl', force: false, apiVersion: 'v1', listKeys })).toThrow(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a',
    );
  });
});

describe('maps', () => {
  const withMaps: ListKeys = Object.assign((path: readonly string[]) => listKeys(path, []), { isMap: (path: readonly string[]) => path[path.length - 1] === 'labels' });

  it('owns the map node too, and shares it between managers without conflicts', () => {
    const first = serverSideApply({ live: undefined, applied: { apiVersion: 'v1', kind: 'X', metadata: { name: 'x', labels: { a: '1' } } } as KubeObject, manager: 'alice', force: false, apiVersion: 'v1', listKeys: withMaps });
    expect(first.metadata.managedFields?.[0]?.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
    const second = serverSideApply({ live: first, applied: { apiVersion: 'v1', kind: 'X', metadata: { name: 'x', labels: { b: '2' } } } as KubeObject, manager: 'bob', force: false, apiVersion: 'v1', listKeys: withMaps });
    expect(second.metadata.labels).toEqual({ a: '1', b: '2' });
    const withdrawn = serverSideApply({ live: second, applied: { apiVersion: 'v1', kind: 'X', metadata: { name: 'x' } } as KubeObject, manager: 'alice', force: false, apiVersion: 'v1', listKeys: withMaps });
    expect(withdrawn.metadata.labels).toEqual({ b: '2' });
  });
});

describe('managedFields order', () => {
  it('sorts entries as kube-apiserver stores them: Apply first, then by second, manager, apiVersion, subresource', () => {
    const sorted = sortManagedFields([
      { manager: 'kcm', operation: 'Update', apiVersion: 'apps/v1', time: '2024-01-01T00:00:00Z' },
      { manager: 'zeta', operation: 'Apply', apiVersion: 'apps/v1', time: '2024-01-01T00:00:09Z' },
      { manager: 'kcm', operation: 'Update', apiVersion: 'apps/v1', time: '2024-01-01T00:00:00Z', subresource: 'status' },
      { manager: 'beta', operation: 'Apply', apiVersion: 'apps/v1', time: '2024-01-01T00:00:09Z' },
      { manager: 'omega', operation: 'Apply', apiVersion: 'apps/v1', time: '2024-01-01T00:00:01Z' },
    ]);
    expect(sorted.map((entry) => `${entry.operation} ${entry.manager}${entry.subresource ? `/${entry.subresource}` : ''}`)).toEqual([
      'Apply omega',
      'Apply beta',
      'Apply zeta',
      'Update kcm',
      'Update kcm/status',
    ]);
  });
});

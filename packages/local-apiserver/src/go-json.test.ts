import { describe, expect, it } from 'vitest';
import { goJsonText, writeBuiltin } from './go-json.js';

const keys = (value: unknown): string[] => Object.keys(value as object);

describe('writeBuiltin', () => {
  it('orders fields as the Go struct declares them, TypeMeta first, unknown fields last and sorted', () => {
    const written = writeBuiltin('ConfigMap', { zz: 1, data: { b: '2', a: '1' }, metadata: { labels: { y: '1', x: '2' }, name: 'c' }, apiVersion: 'v1', kind: 'ConfigMap', aa: 2 });
    expect(keys(written)).toEqual(['kind', 'apiVersion', 'metadata', 'data', 'aa', 'zz']);
    expect(keys(written['data'])).toEqual(['a', 'b']);
    expect(written['metadata']).toEqual({ name: 'c', creationTimestamp: null, labels: { x: '2', y: '1' } });
    expect(keys((written['metadata'] as Record<string, unknown>)['labels'])).toEqual(['x', 'y']);
  });

  it('drops zero omitempty fields, keeps zero pointers and always writes fields without omitempty', () => {
    const written = writeBuiltin('Deployment', { metadata: { name: 'd' }, spec: { replicas: 0, paused: false, minReadySeconds: 0, template: { spec: { containers: [] } } } });
    expect(written['spec']).toEqual({
      replicas: 0,
      template: { metadata: { creationTimestamp: null }, spec: { containers: [] } },
      strategy: {},
    });
    expect(written['status']).toEqual({});
    const role = writeBuiltin('ClusterRole', { metadata: { name: 'r' }, rules: [{ apiGroups: [''] }] });
    expect(role['rules']).toEqual([{ verbs: null, apiGroups: [''] }]);
    expect(writeBuiltin('Role', { metadata: { name: 'r' } })['rules']).toBeNull();
  });

  it('writes Go value structs and their zero forms (times null, quantities "0", value structs {})', () => {
    const pod = writeBuiltin('Pod', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', env: [{ name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }] }] },
      status: { containerStatuses: [{ name: 'c', state: { running: {} } }], conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const container = (pod['spec'] as any).containers[0];
    expect(container.resources).toEqual({});
    expect(container.env[0].valueFrom.resourceFieldRef).toEqual({ resource: 'limits.cpu', divisor: '0' });
    const status = pod['status'] as any;
    expect(status.containerStatuses[0]).toEqual({ name: 'c', state: { running: { startedAt: null } }, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '' });
    expect(status.conditions[0]).toEqual({ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null });
    const event = writeBuiltin('Event', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { name: 'p', kind: 'Pod' }, reason: 'Created' });
    expect(keys(event)).toEqual(['kind', 'apiVersion', 'metadata', 'involvedObject', 'reason', 'source', 'firstTimestamp', 'lastTimestamp', 'eventTime', 'reportingComponent', 'reportingInstance']);
    expect(keys(event['involvedObject'])).toEqual(['kind', 'name']);
  });

  it('writes CRD schemas in JSONSchemaProps order, with sorted properties and defaults', () => {
    const crd = writeBuiltin('CustomResourceDefinition', {
      metadata: { name: 'ws.example.com' },
      spec: {
        versions: [{ schema: { openAPIV3Schema: { properties: { z: { type: 'string' }, a: { default: { y: 1, x: 2 }, type: 'object' } }, type: 'object' } }, storage: true, served: true, name: 'v1' }],
        scope: 'Namespaced',
        names: { kind: 'W', plural: 'ws' },
        group: 'example.com',
      },
    });
    const spec = crd['spec'] as any;
    expect(keys(spec)).toEqual(['group', 'names', 'scope', 'versions']);
    expect(keys(spec.versions[0])).toEqual(['name', 'served', 'storage', 'schema']);
    const schema = spec.versions[0].schema.openAPIV3Schema;
    expect(keys(schema)).toEqual(['type', 'properties']);
    expect(keys(schema.properties)).toEqual(['a', 'z']);
    expect(keys(schema.properties.a)).toEqual(['type', 'default']);
    expect(keys(schema.properties.a.default)).toEqual(['x', 'y']);
    expect(crd['status']).toEqual({ conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: null });
  });

  it('orders managedFields entries as structured-merge-diff writes them', () => {
    const written = writeBuiltin('ConfigMap', {
      metadata: { name: 'c', managedFields: [{ fieldsV1: { 'f:data': { 'f:b': {}, '.': {}, 'f:a': {} }, 'f:metadata': {} }, manager: 'm', fieldsType: 'FieldsV1' }] },
    });
    const entry = (written['metadata'] as any).managedFields[0];
    expect(keys(entry)).toEqual(['manager', 'fieldsType', 'fieldsV1']);
    expect(keys(entry.fieldsV1['f:data'])).toEqual(['.', 'f:a', 'f:b']);
    const set = writeBuiltin('ConfigMap', { metadata: { name: 'c', managedFields: [{ fieldsV1: { 'i:10': {}, 'v:"x"': {}, 'i:2': {}, 'k:{"a":1}': {}, 'f:z': {} } }] } });
    expect(keys((set['metadata'] as any).managedFields[0].fieldsV1)).toEqual(['f:z', 'k:{"a":1}', 'v:"x"', 'i:2', 'i:10']);
  });

  it('keeps values of the wrong shape as they are', () => {
    expect(writeBuiltin('ConfigMap', { metadata: { name: 'c' }, data: 'oops' })['data']).toBe('oops');
    expect(writeBuiltin('Role', { metadata: { name: 'r' }, rules: { not: 'a list' } })['rules']).toEqual({ not: 'a list' });
  });
});

describe('goJsonText', () => {
  it('escapes <, >, &, U+2028 and U+2029 as Go does, and ends with a newline', () => {
    expect(goJsonText({ a: '<x> & \u2028\u2029' })).toBe('{"a":"\\u003cx\\u003e \\u0026 \\u2028\\u2029"}\n');
    expect(goJsonText({ a: 'plain' })).toBe('{"a":"plain"}\n');
  });
});

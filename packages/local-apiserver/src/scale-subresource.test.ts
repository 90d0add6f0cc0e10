import { describe, expect, it } from 'vitest';
import { StatusError } from './errors.js';
import type { KubeObject } from './kube-object.js';
import { requestedReplicas, scaleOf, stringAt, withReplicas, type ScaleSubresource } from './scale-subresource.js';

const nested: ScaleSubresource = { specReplicasPath: '.spec.workers.count', statusReplicasPath: '.status.workers', selector: (object) => stringAt(object, '.status.selector') };

function object(rest: Record<string, unknown>): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Pool', metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '7', creationTimestamp: '2025-01-01T00:00:00Z', labels: { a: 'b' } }, ...rest };
}

describe('scaleOf', () => {
  it('reads replicas along the configured paths and copies only the identity metadata', () => {
    expect(scaleOf(nested, object({ spec: { workers: { count: 3 } }, status: { workers: 2, selector: 'app=p' } }))).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '7', creationTimestamp: '2025-01-01T00:00:00Z' },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=p' },
    });
  });

  it('reads absent replicas as 0 and leaves out an empty selector', () => {
    expect(scaleOf(nested, object({}))).toMatchObject({ spec: { replicas: 0 }, status: { replicas: 0 } });
    expect(scaleOf(nested, object({}))['status']).not.toHaveProperty('selector');
  });

  it('refuses replicas that are not integers', () => {
    expect(() => scaleOf(nested, object({ spec: { workers: { count: 'three' } } }))).toThrow(StatusError);
  });
});

describe('withReplicas', () => {
  it('sets the replicas on a copy, creating the objects along the path', () => {
    const original = object({ spec: { size: 1 } });
    const scaled = withReplicas(nested, original, 4);
    expect(scaled['spec']).toEqual({ size: 1, workers: { count: 4 } });
    expect(original['spec']).toEqual({ size: 1 });
  });

  it('refuses a path through a value that is not an object', () => {
    expect(() => withReplicas(nested, object({ spec: { workers: 5 } }), 1)).toThrow(/spec replicas value cannot be set/);
  });
});

describe('requestedReplicas', () => {
  it('takes spec.replicas, 0 when absent, and reports negative values as field problems', () => {
    expect(requestedReplicas(object({ spec: { replicas: 2 } }))).toEqual({ replicas: 2, problems: [] });
    expect(requestedReplicas(object({}))).toEqual({ replicas: 0, problems: [] });
    expect(requestedReplicas(object({ spec: { replicas: -2 } })).problems).toEqual([{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'Invalid value: -2: must be greater than or equal to 0' }]);
  });

  it('answers 400 to replicas of the wrong type', () => {
    let caught: unknown;
    try {
      requestedReplicas(object({ spec: { replicas: '2' } }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect((caught as StatusError).message).toContain('cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32');
  });
});

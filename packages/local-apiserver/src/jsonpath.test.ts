import { describe, expect, it } from 'vitest';
import { evaluateJsonPath } from './jsonpath.js';

const object = {
  metadata: { name: 'x', labels: { 'app.kubernetes.io/name': 'web' } },
  spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] },
  status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }], replicas: 0 },
};

describe('evaluateJsonPath', () => {
  it.each([
    ['.metadata.name', ['x']],
    ['{.metadata.name}', ['x']],
    [".metadata.labels['app.kubernetes.io/name']", ['web']],
    ['.spec.containers[1].image', ['b:1']],
    ['.spec.containers[-1].name', ['b']],
    ['.spec.containers[*].name', ['a', 'b']],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    ['.status.conditions[?(@.status!="True")].type', ['Synced']],
    ['.status.replicas', [0]],
    ['.status.missing', []],
  ])('%s', (expression, expected) => {
    expect(evaluateJsonPath(expression, object)).toEqual(expected);
  });
});

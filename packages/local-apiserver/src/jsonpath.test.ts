import { describe, expect, it } from 'vitest';
import { evaluateJsonPath } from './jsonpath.js';
import { humanDuration } from './table.js';

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

describe('humanDuration', () => {
  it.each([
    [-5000, '<invalid>'],
    [0, '0s'],
    [59_000, '59s'],
    [119_000, '119s'],
    [150_000, '2m30s'],
    [600_000, '10m'],
    [3 * 3600_000 + 20 * 60_000, '3h20m'],
    [30 * 3600_000, '30h'],
    [3 * 86_400_000 + 5 * 3600_000, '3d5h'],
    [100 * 86_400_000, '100d'],
    [3 * 365 * 86_400_000 + 10 * 86_400_000, '3y10d'],
  ])('%d ms → %s', (milliseconds, expected) => {
    expect(humanDuration(milliseconds)).toBe(expected);
  });
});

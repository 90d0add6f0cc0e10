import { describe, expect, it } from 'vitest';
import { StatusError } from './errors.js';
import { applyJsonPatch } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

describe('applyJsonPatch (RFC 6902)', () => {
  const document = { a: { b: [1, 2, 3] }, c: 'x' };

  it('adds, removes, replaces, moves, copies and tests', () => {
    const result = applyJsonPatch(document, [
      { op: 'add', path: '/a/b/1', value: 9 },
      { op: 'add', path: '/a/b/-', value: 4 },
      { op: 'remove', path: '/a/b/0' },
      { op: 'replace', path: '/c', value: 'y' },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e~1f' },
      { op: 'test', path: '/c', value: 'y' },
    ]);
    expect(result).toEqual({ a: { b: [9, 2, 3, 4] }, c: 'y', 'e/f': 'y' });
    expect(document).toEqual({ a: { b: [1, 2, 3] }, c: 'x' });
  });

  it('fails a test op or a missing path with 422, and a non-array patch with 400', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as StatusError).code;
      }
      return 0;
    };
    expect(code(() => applyJsonPatch(document, [{ op: 'test', path: '/c', value: 'nope' }]))).toBe(422);
    expect(code(() => applyJsonPatch(document, [{ op: 'remove', path: '/missing' }]))).toBe(422);
    expect(code(() => applyJsonPatch(document, [{ op: 'replace', path: '/a/b/7', value: 1 }]))).toBe(422);
    expect(code(() => applyJsonPatch(document, { op: 'add' }))).toBe(400);
  });
});

describe('applyMergePatch (RFC 7386)', () => {
  it('merges objects, deletes on null and replaces arrays', () => {
    expect(applyMergePatch({ a: { b: 1, c: 2 }, l: [1, 2], k: 1 }, { a: { b: null, d: 3 }, l: [3], k: null })).toEqual({ a: { c: 2, d: 3 }, l: [3] });
    expect(applyMergePatch({ a: 1 }, 'x')).toBe('x');
  });
});

describe('applyStrategicMergePatch', () => {
  const deployment = {
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }], volumeMounts: [{ mountPath: '/data', name: 'd' }] },
            { name: 'b', image: 'b:1' },
          ],
          volumes: [{ name: 'd', emptyDir: {} }],
        },
      },
    },
    metadata: { finalizers: ['one'] },
  };

  it('merges keyed lists item by item', () => {
    const result = applyStrategicMergePatch(deployment, {
      spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '3' }, { name: 'Z', value: '4' }], ports: [{ containerPort: 80, name: 'http' }] }, { name: 'c', image: 'c:1' }] } } },
      metadata: { finalizers: ['two'] },
    }) as any;
    const [a, b, c] = result.spec.template.spec.containers;
    expect(a.image).toBe('a:1');
    expect(a.env).toEqual([{ name: 'X', value: '1' }, { name: 'Y', value: '3' }, { name: 'Z', value: '4' }]);
    expect(a.ports).toEqual([{ containerPort: 80, protocol: 'TCP', name: 'http' }]);
    expect(b).toEqual({ name: 'b', image: 'b:1' });
    expect(c).toEqual({ name: 'c', image: 'c:1' });
    expect(result.metadata.finalizers).toEqual(['one', 'two']);
  });

  it('honours $patch delete and replace, $retainKeys, $setElementOrder and $deleteFromPrimitiveList', () => {
    const result = applyStrategicMergePatch(deployment, {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'b', $patch: 'delete' }, { name: 'a', volumeMounts: [{ $patch: 'replace' }, { mountPath: '/other', name: 'o' }] }],
            $setElementOrder: undefined,
            volumes: [{ name: 'd', $retainKeys: ['name', 'configMap'], configMap: { name: 'cm' } }],
          },
        },
      },
      metadata: { $deleteFromPrimitiveList: undefined, '$deleteFromPrimitiveList/finalizers': ['one'] },
    }) as any;
    expect(result.spec.template.spec.containers.map((c: any) => c.name)).toEqual(['a']);
    expect(result.spec.template.spec.containers[0].volumeMounts).toEqual([{ mountPath: '/other', name: 'o' }]);
    expect(result.spec.template.spec.volumes).toEqual([{ name: 'd', configMap: { name: 'cm' } }]);
    expect(result.metadata.finalizers).toEqual([]);

    const ordered = applyStrategicMergePatch(deployment, { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'b', image: 'b:2' }] } } } }) as any;
    expect(ordered.spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(['b=b:2', 'a=a:1']);
  });

  it('replaces a whole map with $patch: replace and deletes with null', () => {
    const result = applyStrategicMergePatch({ spec: { selector: { a: '1', b: '2' }, keep: true } }, { spec: { selector: { $patch: 'replace', c: '3' }, keep: null } }) as any;
    expect(result).toEqual({ spec: { selector: { c: '3' } } });
  });
});

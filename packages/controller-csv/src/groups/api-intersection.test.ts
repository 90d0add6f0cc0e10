import { describe, expect, it } from 'vitest';
import { groupsIntersect, reconcileApiIntersection, type GroupApiView } from './api-intersection.js';

const group = (namespace: string, targets: string[], apis: string[], name = 'og'): GroupApiView => ({
  namespace,
  name,
  targetNamespaces: targets,
  providedApis: new Set(apis),
});
const apis = (...keys: string[]) => new Set(keys);

describe('OperatorGroup intersection', () => {
  it('counts a group namespace among its targets', () => {
    expect(groupsIntersect(group('ns-a', ['ns-x'], []), group('ns-b', ['ns-a'], []))).toBe(true);
    expect(groupsIntersect(group('ns-a', ['ns-x'], []), group('ns-b', ['ns-y'], []))).toBe(false);
  });

  it('treats an all-namespaces group as intersecting every group', () => {
    expect(groupsIntersect(group('ns-a', [''], []), group('ns-b', ['ns-b'], []))).toBe(true);
  });

  describe('rules', () => {
    const own = group('ns-a', ['ns-a'], ['Widget.v1.example.com']);
    const disjointOther = group('ns-b', ['ns-b'], ['Widget.v1.example.com', 'Gadget.v1.example.com']);
    const overlappingOther = group('ns-b', ['ns-a', 'ns-b'], ['Gadget.v1.example.com']);

    it('no intersection and a subset: nothing to do', () => {
      expect(reconcileApiIntersection(own, [disjointOther], apis('Widget.v1.example.com'))).toBe('NoAPIConflict');
    });

    it('no intersection and not a subset: add the CSV APIs to the group', () => {
      expect(reconcileApiIntersection(own, [disjointOther], apis('Widget.v1.example.com', 'Gizmo.v1.example.com'))).toBe(
        'AddAPIs',
      );
    });

    it('an intersecting group provides one of the APIs and the group does not own it: conflict', () => {
      expect(reconcileApiIntersection(own, [overlappingOther], apis('Gadget.v1.example.com'))).toBe('APIConflict');
    });

    it('the group owns the APIs but an intersecting group also claims one: remove them', () => {
      const both = group('ns-a', ['ns-a'], ['Gadget.v1.example.com']);
      expect(reconcileApiIntersection(both, [overlappingOther], apis('Gadget.v1.example.com'))).toBe('RemoveAPIs');
    });

    it('ignores the group itself among the others', () => {
      expect(reconcileApiIntersection(own, [own], apis('Widget.v1.example.com'))).toBe('NoAPIConflict');
    });

    it('an all-namespaces group conflicts with a CSV anywhere', () => {
      const global = group('operators', [''], ['Gadget.v1.example.com'], 'global');
      expect(reconcileApiIntersection(group('ns-z', ['ns-z'], []), [global], apis('Gadget.v1.example.com'))).toBe(
        'APIConflict',
      );
    });
  });
});

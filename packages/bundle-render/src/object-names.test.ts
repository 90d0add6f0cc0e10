import { permissionStruct } from '@olm/plugin-rbac';
import { describe, expect, it } from 'vitest';
import { contentHash, nameForBaseAndSuffix, uniqueName } from './object-names.js';

describe('contentHash', () => {
  // Expected values: base36 of SHA-224 over the exact bytes Go's json.Encoder writes (computed apart, with Python's hashlib).
  it('hashes a permission entry as Go encodes it: struct field order, omitted empty lists, trailing newline', () => {
    const permission = permissionStruct('operator', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    expect(contentHash(permission)).toBe('23iibvv30fcd8jyvs0suijzs6xxt99tl1dz6mnyf0088');
  });

  it('escapes HTML characters as Go does', () => {
    expect(contentHash(permissionStruct('operator', [{ verbs: ['get'], resourceNames: ['a<b'] }]))).toBe('2dml8noujy1juqwp4jzufkk6evt698kg6qohjgphoshb');
  });
});

describe('generated names', () => {
  it('keeps a short base whole', () => {
    expect(nameForBaseAndSuffix('etcd.v1-operator', 'abc')).toBe('etcd.v1-operator-abc');
  });

  it('cuts a too-long base so the name is 63 characters, and keeps the whole hash', () => {
    const base = `${'very-long-operator-name.v1.2.3'.repeat(4)}-controller-manager`;
    const name = uniqueName(base, permissionStruct('controller-manager', []));
    const hash = contentHash(permissionStruct('controller-manager', []));
    expect(name).toHaveLength(63);
    expect(name).toBe(`${base.slice(0, 62 - hash.length)}-${hash}`);
  });

  it('cuts one character earlier than upstream where base and hash fill exactly 63 (upstream would make 64)', () => {
    expect(nameForBaseAndSuffix('a'.repeat(60), 'xyz')).toBe(`${'a'.repeat(59)}-xyz`);
  });
});

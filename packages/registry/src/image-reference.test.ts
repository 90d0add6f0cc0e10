import { describe, expect, it } from 'vitest';
import { validateImageReference } from './image-reference.js';

describe('validateImageReference (reference.ParseNormalizedNamed)', () => {
  it.each([
    'quay.io/org/bundle:v1.0.0',
    'quay.io/org/bundle@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    'registry.connect.redhat.com/ns/name:1.2.3@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    'busybox',
    'localhost:5000/a/b',
    '[::1]:5000/a',
  ])('accepts %s', (reference) => {
    expect(validateImageReference(reference)).toBeUndefined();
  });

  it.each([
    ['quay.io/org/b@md5:0123456789abcdef0123456789abcdef', 'unsupported digest algorithm'],
    ['quay.io/org/b@ssha256:0123456789abcdef0123456789abcdef', 'unsupported digest algorithm'],
    ['quay.io/org/b@sha256:0123456789abcdef0123456789abcdef', 'invalid checksum digest length'],
    ['quay.io/Org/b:v1', 'invalid reference format: repository name (Org/b) must be lowercase'],
    ['quay.io/org/b:v1+build', 'invalid reference format'],
    ['quay.io/org/b:', 'invalid reference format'],
    ['0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'invalid repository name (0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef), cannot specify 64-byte hexadecimal strings'],
    [`quay.io/${'a'.repeat(260)}`, 'repository name must not be more than 255 characters'],
  ])('rejects %s', (reference, reason) => {
    expect(validateImageReference(reference)).toBe(reason);
  });
});

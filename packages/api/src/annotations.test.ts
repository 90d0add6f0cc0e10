import { describe, expect, it } from 'vitest';
import { formatTargetNamespaces } from './annotations.js';

describe('formatTargetNamespaces', () => {
  it('writes the olm.targetNamespaces annotation sorted and comma joined, empty for all namespaces', () => {
    expect(formatTargetNamespaces(['b', 'a'])).toBe('a,b');
    expect(formatTargetNamespaces([''])).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import { parseWarningHeader } from './api-warnings.js';

describe('parseWarningHeader', () => {
  it('reads the form the Kubernetes API server sends', () => {
    expect(parseWarningHeader('299 - "unknown field \\"spec.foo\\""')).toEqual([{ code: 299, agent: '-', text: 'unknown field "spec.foo"' }]);
  });

  it('reads several values joined by commas, with commas inside the quoted text', () => {
    expect(parseWarningHeader('299 - "a, b", 299 kube-apiserver "c" "Tue, 15 Nov 1994 08:12:31 GMT",299 - "d"')).toEqual([
      { code: 299, agent: '-', text: 'a, b' },
      { code: 299, agent: 'kube-apiserver', text: 'c' },
      { code: 299, agent: '-', text: 'd' },
    ]);
  });

  it('keeps other warn-codes (the caller decides) and skips malformed values', () => {
    expect(parseWarningHeader('199 proxy "stale", not a warning, 299 - "kept"')).toEqual([
      { code: 199, agent: 'proxy', text: 'stale' },
      { code: 299, agent: '-', text: 'kept' },
    ]);
    expect(parseWarningHeader('299 - unquoted')).toEqual([]);
    expect(parseWarningHeader('')).toEqual([]);
    expect(parseWarningHeader(' , ')).toEqual([]);
  });
});

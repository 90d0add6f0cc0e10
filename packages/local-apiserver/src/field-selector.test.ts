import { describe, expect, it } from 'vitest';
import { parseFieldSelector } from './field-selector.js';

const supported = new Set(['metadata.name', 'metadata.namespace', 'involvedObject.kind']);

describe('parseFieldSelector', () => {
  it('matches =, == and != on supported fields', () => {
    const selector = parseFieldSelector('metadata.name=a,involvedObject.kind==Pod,metadata.namespace!=kube-system', supported);
    expect(selector.matches({ 'metadata.name': 'a', 'involvedObject.kind': 'Pod', 'metadata.namespace': 'default' })).toBe(true);
    expect(selector.matches({ 'metadata.name': 'a', 'involvedObject.kind': 'Pod', 'metadata.namespace': 'kube-system' })).toBe(false);
    expect(selector.exactValue('metadata.name')).toBe('a');
    expect(selector.exactValue('metadata.namespace')).toBeUndefined();
  });

  it('unescapes values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b', supported).matches({ 'metadata.name': 'a,b' })).toBe(true);
  });

  it('refuses unsupported fields and malformed terms', () => {
    expect(() => parseFieldSelector('spec.nodeName=x', supported)).toThrow('field label not supported: spec.nodeName');
    expect(() => parseFieldSelector('metadata.name', supported)).toThrow(/invalid selector/);
  });
});

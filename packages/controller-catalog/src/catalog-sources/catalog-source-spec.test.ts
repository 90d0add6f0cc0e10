import type { CatalogSourceType } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { specInvalidReason } from './catalog-source-spec.js';

const type = (sourceType: string, validate?: CatalogSourceType['validate']): [string, CatalogSourceType] => [
  sourceType,
  { sourceType, open: () => Promise.reject(new Error('not opened here')), ...(validate ? { validate } : {}) },
];

describe('specInvalidReason', () => {
  const types = new Map([type('grpc', (spec) => (spec.address ? undefined : 'needs an address')), type('fbc-directory')]);

  it('asks the booted type of the sourceType, by name only', () => {
    expect(specInvalidReason({ sourceType: 'grpc', address: 'registry:50051' }, types)).toBeUndefined();
    expect(specInvalidReason({ sourceType: 'grpc' }, types)).toBe('needs an address');
    expect(specInvalidReason({ sourceType: 'fbc-directory' }, types)).toBeUndefined();
  });

  it('says upstream\'s words for a sourceType no booted type has, built-in names included', () => {
    expect(specInvalidReason({ sourceType: 'configmap', configMap: 'catalog' }, types)).toBe('unknown sourcetype: configmap');
    expect(specInvalidReason({ sourceType: 'ftp' }, types)).toBe('unknown sourcetype: ftp');
    expect(specInvalidReason({}, types)).toBe('unknown sourcetype: ');
  });
});

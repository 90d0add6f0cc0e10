import { describe, expect, it } from 'vitest';
import { createCatalogSourceTypes } from '../catalog-source-types.js';
import { registryServiceName } from './registry-pod.js';
import { registryPoll } from './registry-poll.js';

const types = new Map(createCatalogSourceTypes().map((type) => [type.sourceType, type]));
const specInvalidReason = (spec: { sourceType: string; [field: string]: unknown }) => types.get(spec.sourceType)?.validate?.(spec);

describe('CatalogSource spec checks of the grpc and configmap types', () => {
  it('accepts grpc with an image or an address, and configmap with a ConfigMap', () => {
    expect(specInvalidReason({ sourceType: 'grpc', address: 'registry:50051' })).toBeUndefined();
    expect(specInvalidReason({ sourceType: 'grpc', image: 'quay.io/x/index:v1' })).toBeUndefined();
    expect(specInvalidReason({ sourceType: 'configmap', configMap: 'catalog' })).toBeUndefined();
    expect(specInvalidReason({ sourceType: 'internal', configMap: 'catalog' })).toBeUndefined();
  });

  it('explains invalid specs with upstream messages', () => {
    expect(specInvalidReason({ sourceType: 'grpc' })).toBe(
      'image and address unset: at least one must be set for sourcetype: grpc',
    );
    expect(specInvalidReason({ sourceType: 'configmap' })).toBe('configmap name unset: must be set for sourcetype: configmap');
  });

  it('polls only grpc sources with an image, and falls back to 15m0s on a bad interval', () => {
    expect(registryPoll({ sourceType: 'grpc', image: 'x', updateStrategy: { registryPoll: { interval: '10m' } } })).toEqual({
      intervalMs: 600_000,
    });
    expect(registryPoll({ sourceType: 'grpc', updateStrategy: { registryPoll: { interval: '10m' } } })).toEqual({});
    expect(registryPoll({ sourceType: 'grpc', image: 'x', updateStrategy: { registryPoll: { interval: 'often' } } })).toEqual({
      intervalMs: 900_000,
      invalidIntervalMessage:
        'error parsing spec.updateStrategy.registryPoll.interval. Using the default value of 15m0s instead. Error: time: invalid duration "often"',
    });
  });

  it('names the registry Service after the CatalogSource, dots replaced', () => {
    expect(registryServiceName('redhat.operators')).toBe('redhat-operators');
  });
});

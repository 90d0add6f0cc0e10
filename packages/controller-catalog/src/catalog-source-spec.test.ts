import { describe, expect, it } from 'vitest';
import { registryPoll, registryServiceName, specInvalidReason } from './catalog-source-spec.js';

describe('CatalogSource spec checks', () => {
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
    expect(specInvalidReason({ sourceType: 'ftp' })).toBe('unknown sourcetype: ftp');
    expect(specInvalidReason({})).toBe('unknown sourcetype: ');
  });

  it('accepts source types contributed by plugins', () => {
    expect(specInvalidReason({ sourceType: 'fbc-directory' }, ['fbc-directory'])).toBeUndefined();
  });

  it('polls only grpc sources with an image, and falls back to 15m0s on a bad interval', () => {
    expect(registryPoll({ sourceType: 'grpc', image: 'x', updateStrategy: { registryPoll: { interval: '10m' } } })).toEqual({
      intervalMs: 600_000,
    });
    expect(registryPoll({ sourceType: 'grpc', address: 'x:1', updateStrategy: { registryPoll: { interval: '10m' } } })).toEqual({});
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

import type { CatalogSource } from '@olm/api';
import { describe, expect, it } from 'vitest';
import { catalogSourceSummary, registryAddress } from './catalog-source-sync.js';

function source(spec: Partial<CatalogSource['spec']>, status?: CatalogSource['status']): CatalogSource {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata: { name: 'community', namespace: 'olm', labels: { tier: 'x' }, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { sourceType: 'grpc', ...spec },
    ...(status ? { status } : {}),
  };
}

describe('registryAddress', () => {
  it('prefers spec.address, then the address the catalog operator connected to, then the registry Service', () => {
    const service = { serviceName: 'community', serviceNamespace: 'olm', port: '50051', protocol: 'grpc' };
    expect(registryAddress(source({ address: 'registry.example:50051' }, { connectionState: { address: 'other:1', lastObservedState: 'READY' }, registryService: service }))).toBe('registry.example:50051');
    expect(registryAddress(source({ image: 'quay.io/x/catalog:1' }, { connectionState: { address: 'community.olm.svc:50051', lastObservedState: 'READY' } }))).toBe('community.olm.svc:50051');
    expect(registryAddress(source({ image: 'quay.io/x/catalog:1' }, { registryService: service }))).toBe('community.olm.svc:50051');
  });

  it('has none for a ConfigMap catalog, which is read in-process', () => {
    expect(registryAddress(source({ sourceType: 'configmap', configMap: 'catalog' }, { connectionState: { lastObservedState: 'READY' } }))).toBeUndefined();
  });
});

describe('catalogSourceSummary', () => {
  it('takes what PackageManifests show about their catalog', () => {
    expect(catalogSourceSummary(source({ displayName: 'Community', publisher: 'Red Hat', priority: -5 }))).toEqual({
      namespace: 'olm',
      name: 'community',
      labels: { tier: 'x' },
      creationTimestamp: '2024-01-01T00:00:00Z',
      displayName: 'Community',
      publisher: 'Red Hat',
      priority: -5,
    });
  });
});

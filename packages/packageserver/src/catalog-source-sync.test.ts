import type { CatalogSource } from '@olm/api';
import { describe, expect, it } from 'vitest';
import { catalogSourceSummary } from './catalog-source-sync.js';

function source(spec: Partial<CatalogSource['spec']>, status?: CatalogSource['status']): CatalogSource {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata: { name: 'community', namespace: 'olm', labels: { tier: 'x' }, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { sourceType: 'grpc', ...spec },
    ...(status ? { status } : {}),
  };
}

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

import { KubeConfig } from '@kubernetes/client-node';
import type { CatalogSource } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { createCatalogSourceTypes } from '@olm/registry';
import { describe, expect, it } from 'vitest';
import { catalogSourceSummary } from './catalog-source-sync.js';

function source(spec: Partial<CatalogSource['spec']>, status?: CatalogSource['status']): CatalogSource & CachedObject {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata: { name: 'community', namespace: 'olm', labels: { tier: 'x' }, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { sourceType: 'grpc', ...spec },
    ...(status ? { status } : {}),
  };
}

describe("where the grpc type's workload says a CatalogSource is read (locate)", () => {
  const grpc = createCatalogSourceTypes().find((type) => type.sourceType === 'grpc')!;
  // DNS routing asks the cluster nothing: a client of a server nobody listens on proves it.
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'none', server: 'https://127.0.0.1:1' }],
    users: [{ name: 'nobody' }],
    contexts: [{ name: 'none', cluster: 'none', user: 'nobody' }],
    currentContext: 'none',
  });
  const client = new KubeClient({ kubeconfig: kubeConfig });
  const addressOf = async (catalogSource: CatalogSource & CachedObject) => (await grpc.workload!.locate!(catalogSource, client))?.['address'];

  it('prefers spec.address, then the address the catalog operator connected to, then the registry Service', async () => {
    const service = { serviceName: 'community', serviceNamespace: 'olm', port: '50051', protocol: 'grpc' };
    expect(await addressOf(source({ address: 'registry.example:50051' }, { connectionState: { address: 'other:1', lastObservedState: 'READY' }, registryService: service }))).toBe('registry.example:50051');
    expect(await addressOf(source({ image: 'quay.io/x/catalog:1' }, { connectionState: { address: 'community.olm.svc:50051', lastObservedState: 'READY' } }))).toBe('community.olm.svc:50051');
    expect(await addressOf(source({ image: 'quay.io/x/catalog:1' }, { registryService: service }))).toBe('community.olm.svc:50051');
  });

  it('has none for an image catalog the catalog operator serves nowhere yet', async () => {
    expect(await grpc.workload!.locate!(source({ image: 'quay.io/x/catalog:1' }), client)).toBeUndefined();
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

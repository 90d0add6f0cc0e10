import { describe, expect, it } from 'vitest';
import { apiServiceObjects } from './api-service.js';

describe('apiServiceObjects', () => {
  it('points v1.packages.operators.coreos.com at the Service with the serving CA, plus an ExternalName Service for a local host', () => {
    expect(apiServiceObjects({ service: { namespace: 'olm', port: 5443 }, externalHost: '127.0.0.1', caBundle: 'PEM' })).toEqual([
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'packageserver-service', namespace: 'olm' }, spec: { type: 'ExternalName', externalName: '127.0.0.1', ports: [{ name: 'https', port: 5443 }] } },
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1.packages.operators.coreos.com' },
        spec: {
          group: 'packages.operators.coreos.com',
          version: 'v1',
          groupPriorityMinimum: 2000,
          versionPriority: 15,
          service: { namespace: 'olm', name: 'packageserver-service', port: 5443 },
          caBundle: Buffer.from('PEM').toString('base64'),
        },
      },
    ]);
  });

  it('writes only the APIService in a cluster, without TLS verification when no CA is known; plain HTTP says so on the port', () => {
    const [inCluster] = apiServiceObjects({ service: { namespace: 'operator-lifecycle-manager', name: 'packageserver', port: 443 } });
    expect(inCluster?.kind).toBe('APIService');
    expect(inCluster?.['spec']).toMatchObject({ service: { namespace: 'operator-lifecycle-manager', name: 'packageserver', port: 443 }, insecureSkipTLSVerify: true });
    const [service] = apiServiceObjects({ service: { namespace: 'olm', port: 8080 }, externalHost: 'localhost', plainHttp: true });
    expect(service?.['spec']).toMatchObject({ ports: [{ name: 'http', port: 8080, appProtocol: 'http' }] });
  });
});

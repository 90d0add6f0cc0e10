import { describe, expect, it } from 'vitest';
import { desiredApiService, isApiServiceAvailable } from './api-services.js';

const owner = { metadata: { name: 'op.v1', namespace: 'ops' } };
const description = { name: 'widgets', group: 'w.example.com', version: 'v1', kind: 'Widget', deploymentName: 'op' };
const ownerLabels = { 'olm.owner': 'op.v1', 'olm.owner.namespace': 'ops', 'olm.owner.kind': 'ClusterServiceVersion' };

describe('desiredApiService', () => {
  it('a new APIService: upstream priorities, the Service on the container port, the CA, owner labels', () => {
    expect(desiredApiService(owner, { ...description, containerPort: 8443 }, 'CA')).toEqual({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.w.example.com', labels: ownerLabels },
      spec: {
        group: 'w.example.com',
        version: 'v1',
        groupPriorityMinimum: 2000,
        versionPriority: 15,
        service: { namespace: 'ops', name: 'op-service', port: 8443 },
        caBundle: Buffer.from('CA').toString('base64'),
      },
    });
  });

  it('an existing one keeps its priorities, labels and status', () => {
    const existing = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.w.example.com', resourceVersion: '7', labels: { team: 'x' } },
      spec: { group: 'w.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 },
      status: { conditions: [{ type: 'Available', status: 'True' }] },
    };
    const desired = desiredApiService(owner, description, 'CA', existing);
    expect(desired.metadata).toEqual({ name: 'v1.w.example.com', resourceVersion: '7', labels: { team: 'x', ...ownerLabels } });
    expect(desired.spec).toMatchObject({ groupPriorityMinimum: 100, versionPriority: 10, service: { namespace: 'ops', name: 'op-service', port: 443 } });
    expect(isApiServiceAvailable(desired)).toBe(true);
    expect(existing.metadata.labels).toEqual({ team: 'x' });
  });

  it('isApiServiceAvailable needs Available=True', () => {
    expect(isApiServiceAvailable(undefined)).toBe(false);
    expect(isApiServiceAvailable({ status: { conditions: [{ type: 'Available', status: 'False' }] } })).toBe(false);
  });
});

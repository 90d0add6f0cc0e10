import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion } from '@olm/api';
import type { CachedObject, ObjectKind, ObjectReader } from '@olm/core';
import { apiServiceResourceProblem, desiredApiService, isApiServiceAvailable } from './api-services.js';
import { authDelegatorBinding, authReaderBinding, certSecret, certService, secretRole, secretRoleBinding } from './cert-resources.js';
import { generateCertificateAuthority, pemSha256 } from './certificates.js';
import { Kinds } from '../kinds.js';
import type { ServingSnapshot } from './serving-snapshot.js';

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

/** An in-memory ObjectReader (name and namespace lookups only). */
function reader(objects: readonly CachedObject[]): ObjectReader {
  const matches = (object: CachedObject, kind: ObjectKind) => object.apiVersion === kind.apiVersion && object.kind === kind.kind;
  return {
    // A fake holding plain objects of the kinds asked for: typed reads see them as the kind's type.
    get: (kind, name, namespace) =>
      objects.find((object) => matches(object, kind) && object.metadata?.name === name && (object.metadata?.namespace ?? '') === (namespace ?? '')) as never,
    list: (kind, options = {}) => objects.filter((object) => matches(object, kind) && (options.namespace === undefined || object.metadata?.namespace === options.namespace)) as never,
  };
}

describe('apiServiceResourceProblem (upstream checkAPIServiceResources) on a snapshot', async () => {
  const csv = { ...owner, spec: { apiservicedefinitions: { owned: [description] } } } as unknown as ClusterServiceVersion & typeof owner;
  const now = new Date();
  const ca = await generateCertificateAuthority(now);
  const serving = await ca.sign(['op-service.ops.svc'], now);
  const caHash = pemSha256(ca.certPem);
  const intact: ServingSnapshot = {
    apiServices: new Map([['v1.w.example.com', desiredApiService(owner, description, ca.certPem)]]),
    webhookConfigurations: [],
    conversionCrds: new Map(),
    deployments: new Map([['op', { service: certService(owner, 'op', {}, []), secret: certSecret(owner, 'op-service', { caPem: ca.certPem, ...serving }, caHash) }]]),
  };
  const cache = reader([
    { ...Kinds.deployment, metadata: { name: 'op', namespace: 'ops' }, spec: { template: { metadata: { annotations: { olmcahash: caHash } }, spec: {} } } },
    { ...Kinds.serviceAccount, metadata: { name: 'default', namespace: 'ops' } },
    secretRole(owner, 'op-service-cert'),
    secretRoleBinding(owner, 'op-service-cert', 'default'),
    authDelegatorBinding(owner, 'op-service', 'default'),
    authReaderBinding(owner, 'op-service', 'default'),
  ]);

  it('finds nothing wrong with intact resources', () => {
    expect(apiServiceResourceProblem(csv, intact, cache)).toBeUndefined();
  });

  it("reports what the snapshot lacks, with upstream's messages", () => {
    const withoutSecret = { ...intact, deployments: new Map([['op', { service: intact.deployments.get('op')!.service }]]) };
    expect(apiServiceResourceProblem(csv, withoutSecret, cache)).toEqual({ message: 'secrets "op-service-cert" not found', actionable: true });
    const withoutService = { ...intact, deployments: new Map([['op', { secret: intact.deployments.get('op')!.secret }]]) };
    expect(apiServiceResourceProblem(csv, withoutService, cache)).toEqual({ message: 'services "op-service" not found', actionable: true });
    expect(apiServiceResourceProblem(csv, { ...intact, apiServices: new Map([['v1.w.example.com', undefined]]) }, cache)).toEqual({
      message: 'apiservices.apiregistration.k8s.io "v1.w.example.com" not found',
      actionable: true,
    });
    expect(apiServiceResourceProblem(csv, intact, reader([]))?.message).toBe('deployments.apps "op" not found');
  });

  it('an APIService another CSV owns is not actionable', () => {
    const taken = desiredApiService({ metadata: { name: 'other.v1', namespace: 'ops' } }, description, ca.certPem);
    expect(apiServiceResourceProblem(csv, { ...intact, apiServices: new Map([['v1.w.example.com', taken]]) }, cache)).toEqual({
      message: 'v1.w.example.com is unadoptable',
      actionable: false,
    });
  });
});

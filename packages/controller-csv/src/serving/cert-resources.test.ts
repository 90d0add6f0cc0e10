import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion } from '@olm/api';
import {
  authDelegatorBinding,
  authReaderBinding,
  certDeploymentNames,
  certResources,
  certSecret,
  certService,
  hostnamesForService,
  secretMaterial,
  secretRole,
  servicePorts,
  servingPodTemplate,
} from './cert-resources.js';

const owner = { metadata: { name: 'op.v1', namespace: 'ops', uid: 'uid-1' } };
const ownerReference = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'op.v1', uid: 'uid-1', controller: false, blockOwnerDeletion: false };

function csvWith(spec: Partial<ClusterServiceVersion['spec']>): ClusterServiceVersion {
  return { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', metadata: owner.metadata, spec: { displayName: 'op', install: { strategy: 'deployment' }, ...spec } } as unknown as ClusterServiceVersion;
}

describe('certResources and servicePorts', () => {
  it('lists owned APIServices then webhooks with their deployment and port (443 by default; a webhook may target another port)', () => {
    const csv = csvWith({
      apiservicedefinitions: { owned: [{ name: 'widgets', group: 'w.example.com', version: 'v1', kind: 'Widget', deploymentName: 'api' }] },
      webhookdefinitions: [
        { generateName: 'v.example.com', type: 'ValidatingAdmissionWebhook', deploymentName: 'hooks', containerPort: 8443, targetPort: 9443, sideEffects: 'None', admissionReviewVersions: ['v1'] },
        { generateName: 'm.example.com', type: 'MutatingAdmissionWebhook', deploymentName: 'hooks', containerPort: 8443, targetPort: 9443, sideEffects: 'None', admissionReviewVersions: ['v1'] },
        { generateName: 'c.example.com', type: 'ConversionWebhook', deploymentName: 'hooks', sideEffects: 'None', admissionReviewVersions: ['v1'] },
      ],
    });
    const resources = certResources(csv);
    expect(resources.map(({ kind, name, deploymentName }) => `${kind}/${name}@${deploymentName}`)).toEqual([
      'APIService/v1.w.example.com@api',
      'Webhook/v.example.com@hooks',
      'Webhook/m.example.com@hooks',
      'Webhook/c.example.com@hooks',
    ]);
    expect(resources[0]!.port).toEqual({ name: '443', port: 443, targetPort: 443 });
    expect(servicePorts(resources.filter((resource) => resource.deploymentName === 'hooks'))).toEqual([
      { name: '8443', port: 8443, targetPort: 9443 },
      { name: '443', port: 443, targetPort: 443 },
    ]);
    expect(certDeploymentNames(csv)).toEqual(new Set(['api', 'hooks']));
    expect(certResources(csvWith({}))).toEqual([]);
  });

  it('names the serving certificate for the Service in its namespace', () => {
    expect(hostnamesForService('op-service', 'ops')).toEqual(['op-service.ops', 'op-service.ops.svc', 'op-service.ops.svc.cluster.local']);
  });
});

describe('generated objects', () => {
  it('a Service selecting the pods, owned by the CSV without blocking its deletion', () => {
    expect(certService(owner, 'op', { app: 'op' }, [{ name: '443', port: 443, targetPort: 443 }])).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'op-service', namespace: 'ops', labels: { 'olm.managed': 'true' }, ownerReferences: [ownerReference] },
      spec: { ports: [{ name: '443', port: 443, targetPort: 443 }], selector: { app: 'op' } },
    });
  });

  it('a TLS Secret whose material reads back', () => {
    const secret = certSecret(owner, 'op-service', { caPem: 'CA', certPem: 'CERT', keyPem: 'KEY' }, 'hash');
    expect(secret).toMatchObject({ type: 'kubernetes.io/tls', metadata: { name: 'op-service-cert', annotations: { olmcahash: 'hash' } } });
    expect(secretMaterial(secret)).toEqual({ caPem: 'CA', certPem: 'CERT', keyPem: 'KEY' });
    expect(secretMaterial(undefined)).toEqual({ caPem: undefined, certPem: undefined, keyPem: undefined });
  });

  it('RBAC: get on the Secret alone; the auth bindings carry owner labels', () => {
    expect(secretRole(owner, 'op-service-cert').rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['op-service-cert'] }]);
    const delegator = authDelegatorBinding(owner, 'op-service', 'runner');
    expect(delegator.metadata).toEqual({
      name: 'op-service-system:auth-delegator',
      labels: { 'olm.managed': 'true', 'olm.owner': 'op.v1', 'olm.owner.namespace': 'ops', 'olm.owner.kind': 'ClusterServiceVersion' },
    });
    expect(delegator.subjects).toEqual([{ kind: 'ServiceAccount', apiGroup: '', name: 'runner', namespace: 'ops' }]);
    expect(authReaderBinding(owner, 'op-service', 'runner')).toMatchObject({
      metadata: { name: 'op-service-auth-reader', namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
    });
  });
});

describe('servingPodTemplate', () => {
  it('mounts the Secret in every container, names the service account, and annotates the CA hash, keeping the rest', () => {
    const spec = {
      selector: { matchLabels: { app: 'op' } },
      template: {
        metadata: { annotations: { keep: 'me' } },
        spec: {
          volumes: [{ name: 'webhook-cert', emptyDir: {} }, { name: 'data', emptyDir: {} }],
          containers: [
            { name: 'a', volumeMounts: [{ name: 'certs', mountPath: '/apiserver.local.config/certificates' }] },
            { name: 'b', volumeMounts: [{ name: 'webhook-cert', mountPath: '/elsewhere' }] },
          ],
        },
      },
    };
    const original = structuredClone(spec);
    const result = { template: servingPodTemplate(spec.template, 'op-service-cert', 'abc') as typeof spec.template & { spec: Record<string, unknown> } };
    expect(spec).toEqual(original);
    expect(result.template.metadata.annotations).toEqual({ keep: 'me', olmcahash: 'abc' });
    expect(result.template.spec.serviceAccountName).toBe('default');
    expect(result.template.spec.volumes).toEqual([
      { name: 'webhook-cert', secret: { secretName: 'op-service-cert', items: [{ key: 'tls.crt', path: 'tls.crt' }, { key: 'tls.key', path: 'tls.key' }] } },
      { name: 'data', emptyDir: {} },
      { name: 'apiservice-cert', secret: { secretName: 'op-service-cert', items: [{ key: 'tls.crt', path: 'apiserver.crt' }, { key: 'tls.key', path: 'apiserver.key' }] } },
    ]);
    // A mount at the same path is replaced; a mount of the same name is kept as the author wrote it.
    expect(result.template.spec.containers).toEqual([
      { name: 'a', volumeMounts: [{ name: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' }, { name: 'webhook-cert', mountPath: '/tmp/k8s-webhook-server/serving-certs' }] },
      { name: 'b', volumeMounts: [{ name: 'webhook-cert', mountPath: '/elsewhere' }, { name: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' }] },
    ]);
  });

  it('keeps an explicit service account', () => {
    const result = servingPodTemplate({ spec: { serviceAccountName: 'runner', containers: [] } }, 's', 'h') as { spec: { serviceAccountName: string } };
    expect(result.spec.serviceAccountName).toBe('runner');
  });
});

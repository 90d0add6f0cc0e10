import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion } from '@olm/api';
import { certRenewalReason, secretRenewalReason } from './cert-install.js';
import { certSecret } from './cert-resources.js';
import { generateCertificateAuthority, pemSha256 } from './certificates.js';
import { emptyServingSnapshot } from './serving-snapshot.js';
import { servingCertificates } from './serving-step.js';

const owner = { metadata: { name: 'op.v1', namespace: 'ops' } };
const hosts = ['op-service.ops', 'op-service.ops.svc', 'op-service.ops.svc.cluster.local'];

describe('secretRenewalReason', () => {
  it('keeps a valid Secret, renews a missing one or one whose CA hash annotation was changed', async () => {
    const now = new Date();
    const ca = await generateCertificateAuthority(now);
    const serving = await ca.sign(hosts, now);
    const secret = certSecret(owner, 'op-service', { caPem: ca.certPem, ...serving }, pemSha256(ca.certPem));
    expect(secretRenewalReason(secret, hosts, now)).toBeUndefined();
    expect(secretRenewalReason(undefined, hosts, now)).toBe('no serving certificate Secret');
    const edited = { ...secret, metadata: { ...secret.metadata, annotations: { olmcahash: 'changed' } } };
    expect(secretRenewalReason(edited, hosts, now)).toBe('the CA hash annotation does not match the CA');
    expect(secretRenewalReason(secret, ['other-service.ops.svc'], now)).toBe('serving certificate is not valid for other-service.ops.svc');
  });
});

describe('certRenewalReason', () => {
  it("judges each serving deployment's Secret as the sync's snapshot shows it", async () => {
    const now = new Date();
    const ca = await generateCertificateAuthority(now);
    const secret = certSecret(owner, 'op-service', { caPem: ca.certPem, ...(await ca.sign(hosts, now)) }, pemSha256(ca.certPem));
    const csv = {
      metadata: owner.metadata,
      spec: { webhookdefinitions: [{ generateName: 'v.example.com', type: 'ValidatingAdmissionWebhook', deploymentName: 'op', sideEffects: 'None', admissionReviewVersions: ['v1'] }] },
    } as unknown as ClusterServiceVersion & typeof owner;
    expect(certRenewalReason(csv, { ...emptyServingSnapshot, deployments: new Map([['op', { secret }]]) }, now)).toBeUndefined();
    expect(certRenewalReason(csv, { ...emptyServingSnapshot, deployments: new Map([['op', {}]]) }, now)).toBe('op-service-cert: no serving certificate Secret');
    const late = new Date(ca.notAfter.getTime() - 60 * 60 * 1000);
    expect(certRenewalReason(csv, { ...emptyServingSnapshot, deployments: new Map([['op', { secret }]]) }, late)).toMatch(/^op-service-cert: CA certificate expires at /);
  });
});

describe('servingCertificates', () => {
  it('gives the pods of serving workloads their certificate and CA hash, leaves the others', () => {
    const csv = {
      metadata: owner.metadata,
      spec: { webhookdefinitions: [{ generateName: 'v.example.com', type: 'ValidatingAdmissionWebhook', deploymentName: 'hooks', sideEffects: 'None', admissionReviewVersions: ['v1'] }] },
    } as unknown as ClusterServiceVersion;
    const template = { spec: { containers: [] } };
    const serving = servingCertificates(csv, new Map([['hooks', 'CA'], ['other', 'CA']]));
    expect((serving.podTemplate('hooks', template) as { metadata: { annotations: Record<string, string> } }).metadata.annotations).toEqual({ olmcahash: pemSha256('CA') });
    expect(serving.podTemplate('other', template)).toBe(template);
    // Without a CA found for it, the workload runs as the strategy lists it.
    expect(servingCertificates(csv, new Map()).podTemplate('hooks', template)).toBe(template);
  });
});

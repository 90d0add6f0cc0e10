import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion, WebhookDescription } from '@olm/api';
import { conversionCrdNames, desiredWebhook, supportsOnlyAllNamespaces, webhookDescriptionHash, webhookNamespaceSelector, webhookServiceName } from './webhooks.js';

const owner = { metadata: { name: 'op.v1', namespace: 'ops' } };
const base: WebhookDescription = {
  generateName: 'v.example.com',
  type: 'ValidatingAdmissionWebhook',
  deploymentName: 'op.controller',
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  reinvocationPolicy: 'IfNeeded',
};

describe('desiredWebhook', () => {
  it('points at the deployment Service (dots made dashes) on the container port, with the CA; only mutating webhooks reinvoke', () => {
    expect(desiredWebhook(owner, base, 'CA', undefined)).toEqual({
      name: 'v.example.com',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      clientConfig: { service: { name: 'op-controller-service', namespace: 'ops', port: 443 }, caBundle: Buffer.from('CA').toString('base64') },
    });
    expect(desiredWebhook(owner, { ...base, type: 'MutatingAdmissionWebhook', webhookPath: '/m', containerPort: 9443 }, 'CA', { matchLabels: { a: 'b' } })).toMatchObject({
      reinvocationPolicy: 'IfNeeded',
      namespaceSelector: { matchLabels: { a: 'b' } },
      clientConfig: { service: { path: '/m', port: 9443 } },
    });
    expect(webhookServiceName({ deploymentName: 'a.b.c' })).toBe('a-b-c-service');
  });

  it('hashes the description, so that a change shows', () => {
    expect(webhookDescriptionHash(base)).toBe(webhookDescriptionHash({ ...base }));
    expect(webhookDescriptionHash(base)).not.toBe(webhookDescriptionHash({ ...base, failurePolicy: 'Ignore' }));
    expect(webhookDescriptionHash(base).length).toBeLessThanOrEqual(63);
  });
});

describe('webhookNamespaceSelector (upstream NamespaceLabelSelector)', () => {
  it('the group UID label for explicit targets, the group selector, or every namespace', () => {
    expect(webhookNamespaceSelector({ metadata: { uid: 'u1' }, spec: { targetNamespaces: ['a'] } })).toEqual({ matchLabels: { 'olm.operatorgroup.uid/u1': '' } });
    expect(webhookNamespaceSelector({ metadata: { uid: 'u1' }, spec: { selector: { matchLabels: { team: 'x' } } } })).toEqual({ matchLabels: { team: 'x' } });
    expect(webhookNamespaceSelector({ metadata: { uid: 'u1' }, spec: {} })).toBeUndefined();
    expect(() => webhookNamespaceSelector({ spec: { targetNamespaces: ['a'] } })).toThrow('the OperatorGroup has no UID yet');
  });
});

describe('supportsOnlyAllNamespaces (upstream isSingletonOperator)', () => {
  const csv = (modes: Array<[string, boolean]>) => ({ spec: { installModes: modes.map(([type, supported]) => ({ type, supported })) } }) as unknown as ClusterServiceVersion;
  it('true only when AllNamespaces is the one supported mode', () => {
    expect(supportsOnlyAllNamespaces(csv([['AllNamespaces', true], ['OwnNamespace', false]]))).toBe(true);
    expect(supportsOnlyAllNamespaces(csv([['AllNamespaces', true], ['OwnNamespace', true]]))).toBe(false);
    expect(supportsOnlyAllNamespaces(csv([['AllNamespaces', false]]))).toBe(false);
  });
});

describe('conversionCrdNames', () => {
  it("the CRDs of the CSV's conversion webhooks, each once", () => {
    const conversion = { ...base, type: 'ConversionWebhook', conversionCRDs: ['a.example.com', 'b.example.com'] } as WebhookDescription;
    const csv = {
      spec: { webhookdefinitions: [conversion, { ...conversion, generateName: 'c2.example.com', conversionCRDs: ['b.example.com'] }, { ...base, conversionCRDs: ['ignored.example.com'] }] },
    } as unknown as ClusterServiceVersion;
    expect(conversionCrdNames(csv)).toEqual(['a.example.com', 'b.example.com']);
  });
});

import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion, WebhookDescription } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { expectedCaBundles } from './ca-bundles.js';
import { certSecret } from './cert-resources.js';
import { emptyServingSnapshot, type ServingObjects, type ServingSnapshot } from './serving-snapshot.js';
import { webhookDescriptionHash, type WebhookConfiguration } from './webhooks.js';

const owner = { metadata: { name: 'op.v1', namespace: 'ops' } };
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const apiService = { group: 'w.example.com', version: 'v1', kind: 'Widget', name: 'widgets', deploymentName: 'api' };
const validating: WebhookDescription = { type: 'ValidatingAdmissionWebhook', generateName: 'v.example.com', deploymentName: 'hooks', sideEffects: 'None', admissionReviewVersions: ['v1'] };
const conversion: WebhookDescription = { ...validating, type: 'ConversionWebhook', generateName: 'c.example.com', conversionCRDs: ['gadgets.example.com'] };

function csvWith(spec: Record<string, unknown>): ClusterServiceVersion {
  return { metadata: owner.metadata, spec } as unknown as ClusterServiceVersion;
}

const secretWithCa = (deployment: string, caPem: string): ServingObjects => ({
  secret: certSecret(owner, `${deployment}-service`, { caPem, certPem: 'cert', keyPem: 'key' }, 'hash'),
});

function snapshot(parts: Partial<{ apiServices: Array<[string, CachedObject]>; configurations: WebhookConfiguration[]; crds: Array<[string, CachedObject]>; deployments: Array<[string, ServingObjects]> }>): ServingSnapshot {
  return {
    ...emptyServingSnapshot,
    apiServices: new Map(parts.apiServices ?? []),
    webhookConfigurations: parts.configurations ?? [],
    conversionCrds: new Map(parts.crds ?? []),
    deployments: new Map(parts.deployments ?? []),
  };
}

const configuration = (caPem: string): WebhookConfiguration => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'v.example.com-x7k2p', labels: { 'olm.webhook-description-generate-name': 'v.example.com', 'olm.webhook-description-hash': webhookDescriptionHash(validating) } },
  webhooks: [{ clientConfig: { caBundle: base64(caPem) } }],
});

describe('expectedCaBundles', () => {
  it("takes an APIService's CA bundle and a webhook configuration's, for their deployments", () => {
    const csv = csvWith({ apiservicedefinitions: { owned: [apiService] }, webhookdefinitions: [validating] });
    const found = snapshot({
      apiServices: [['v1.w.example.com', { metadata: { name: 'v1.w.example.com' }, spec: { caBundle: base64('API CA') } }]],
      configurations: [configuration('HOOK CA')],
      deployments: [['api', secretWithCa('api', 'other')], ['hooks', secretWithCa('hooks', 'other')]],
    });
    expect(expectedCaBundles(csv, found)).toEqual(new Map([['api', 'API CA'], ['hooks', 'HOOK CA']]));
  });

  it("a conversion webhook: its CRD's CA bundle, else the serving Secret's", () => {
    const csv = csvWith({ webhookdefinitions: [conversion] });
    const crd = { metadata: { name: 'gadgets.example.com' }, spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: { caBundle: base64('CRD CA') } } } } };
    expect(expectedCaBundles(csv, snapshot({ crds: [['gadgets.example.com', crd]], deployments: [['hooks', secretWithCa('hooks', 'SECRET CA')]] }))).toEqual(new Map([['hooks', 'CRD CA']]));
    expect(expectedCaBundles(csv, snapshot({ deployments: [['hooks', secretWithCa('hooks', 'SECRET CA')]] }))).toEqual(new Map([['hooks', 'SECRET CA']]));
  });

  it("fails with upstream's messages when a CA or a Secret is missing from the snapshot", () => {
    const csv = csvWith({ apiservicedefinitions: { owned: [apiService] }, webhookdefinitions: [validating] });
    const apiServices: Array<[string, CachedObject]> = [['v1.w.example.com', { metadata: { name: 'v1.w.example.com' }, spec: { caBundle: base64('API CA') } }]];
    const secrets: Array<[string, ServingObjects]> = [['api', secretWithCa('api', 'CA')], ['hooks', secretWithCa('hooks', 'CA')]];
    expect(() => expectedCaBundles(csv, snapshot({ configurations: [configuration('CA')], deployments: secrets }))).toThrow(
      'could not retrieve caBundle for owned APIServices v1.w.example.com: unable to find CA',
    );
    expect(() => expectedCaBundles(csv, snapshot({ apiServices, deployments: secrets }))).toThrow('could not retrieve caBundle for WebhookDescription v.example.com: unable to find CA');
    expect(() => expectedCaBundles(csv, snapshot({ apiServices, configurations: [configuration('CA')], deployments: [secrets[1]!] }))).toThrow('unable to get secret api-service-cert');
  });
});

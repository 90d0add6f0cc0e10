import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterServiceVersion } from '@olm/api';
import { Kinds } from '../src/kinds.js';
import { emptyServingSnapshot, readServingSnapshot } from '../src/serving/serving-snapshot.js';
import { createNamespace, crdManifest, startEnvironment, type Environment } from './helpers.js';

let env: Environment;
beforeAll(async () => {
  env = await startEnvironment();
});
afterAll(async () => {
  await env?.stop();
});

const namespace = 'snap';
const ownerLabels = (name: string) => ({ 'olm.owner': name, 'olm.owner.namespace': namespace, 'olm.owner.kind': 'ClusterServiceVersion' });
const webhook = { sideEffects: 'None', admissionReviewVersions: ['v1'] };

const csv = {
  metadata: { name: 'snap.v1', namespace },
  spec: {
    apiservicedefinitions: { owned: [{ group: 'snap.example.com', version: 'v1', kind: 'Widget', name: 'widgets', deploymentName: 'api' }] },
    webhookdefinitions: [
      { ...webhook, type: 'ValidatingAdmissionWebhook', generateName: 'v.snap.example.com', deploymentName: 'hooks' },
      { ...webhook, type: 'ConversionWebhook', generateName: 'c.snap.example.com', deploymentName: 'hooks', conversionCRDs: ['gadgets.snap.example.com', 'missing.snap.example.com'] },
    ],
  },
} as unknown as ClusterServiceVersion & { metadata: { name: string; namespace: string } };

describe('readServingSnapshot', () => {
  it("reads the CSV's APIServices, its webhook configurations, its conversion CRDs and each serving deployment's Service and Secret", async () => {
    const { client } = env;
    await createNamespace(client, namespace);
    await client.create({ ...Kinds.apiService, metadata: { name: 'v1.snap.example.com' }, spec: { group: 'snap.example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1 } });
    const configuration = (name: string, owner: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name, labels: { ...ownerLabels(owner), 'olm.webhook-description-generate-name': 'v.snap.example.com' } },
      webhooks: [],
    });
    await client.create(configuration('mine', 'snap.v1'));
    await client.create(configuration('theirs', 'other.v1'));
    await client.create(crdManifest('gadgets', 'snap.example.com', 'Gadget'));
    await client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api-service', namespace }, spec: { ports: [{ port: 443 }] } });
    await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hooks-service-cert', namespace }, data: {} });

    const snapshot = await readServingSnapshot(client, csv);
    expect([...snapshot.apiServices.keys()]).toEqual(['v1.snap.example.com']);
    expect(snapshot.apiServices.get('v1.snap.example.com')?.spec?.group).toBe('snap.example.com');
    // Only the CSV's own configurations, each knowing its kind.
    expect(snapshot.webhookConfigurations.map((item) => [item.kind, item.metadata?.name])).toEqual([['ValidatingWebhookConfiguration', 'mine']]);
    expect(snapshot.conversionCrds.get('gadgets.snap.example.com')?.metadata?.name).toBe('gadgets.snap.example.com');
    expect(snapshot.conversionCrds.has('missing.snap.example.com')).toBe(true);
    expect(snapshot.conversionCrds.get('missing.snap.example.com')).toBeUndefined();
    expect(snapshot.deployments.get('api')?.service?.metadata?.name).toBe('api-service');
    expect(snapshot.deployments.get('api')?.secret).toBeUndefined();
    expect(snapshot.deployments.get('hooks')?.service).toBeUndefined();
    expect(snapshot.deployments.get('hooks')?.secret?.metadata?.name).toBe('hooks-service-cert');
  });

  it('reads nothing for a CSV that owns no APIServices or webhooks', async () => {
    const plain = { metadata: { name: 'plain.v1', namespace }, spec: {} } as unknown as typeof csv;
    expect(await readServingSnapshot(env.client, plain)).toBe(emptyServingSnapshot);
  });
});

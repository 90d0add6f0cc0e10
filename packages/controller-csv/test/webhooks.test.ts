import { createHash, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CachedObject } from '@olm/core';
import { Kinds } from '../src/kinds.js';
import {
  defaultServiceAccount,
  createNamespace,
  createOperatorGroup,
  crdManifest,
  csv,
  eventually,
  getCsv,
  groupSynced,
  historyUntil,
  namespaceWithGroup,
  useController,
  waitForPhase,
  type CsvObject,
} from './helpers.js';

const harness = useController();

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const decode = (value: unknown) => Buffer.from(String(value), 'base64').toString('utf8');
const entries = (current: CsvObject) => (current.status?.conditions ?? []).map((condition) => `${condition.phase}/${condition.reason}/${condition.message}`);

const validating = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };
const mutating = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration' };
type WebhookConfiguration = CachedObject & { webhooks?: Array<Record<string, unknown> & { clientConfig?: { caBundle?: string }; failurePolicy?: string }> };
type Crd = CachedObject & { spec?: { conversion?: Record<string, unknown> } };

const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['wh.example.com'], apiVersions: ['v1'], resources: ['widgets'], scope: 'Namespaced' }];

function validatingWebhook(deploymentName: string, overrides: Record<string, unknown> = {}) {
  return {
    type: 'ValidatingAdmissionWebhook',
    generateName: 'vwidget.wh.example.com',
    deploymentName,
    containerPort: 8443,
    targetPort: 9443,
    rules,
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    objectSelector: { matchLabels: { validated: 'yes' } },
    sideEffects: 'None',
    timeoutSeconds: 5,
    admissionReviewVersions: ['v1', 'v1beta1'],
    webhookPath: '/validate',
    ...overrides,
  };
}

function mutatingWebhook(deploymentName: string) {
  return {
    type: 'MutatingAdmissionWebhook',
    generateName: 'mwidget.wh.example.com',
    deploymentName,
    containerPort: 8443,
    targetPort: 9443,
    rules,
    failurePolicy: 'Ignore',
    sideEffects: 'NoneOnDryRun',
    admissionReviewVersions: ['v1'],
    reinvocationPolicy: 'IfNeeded',
    webhookPath: '/mutate',
  };
}

/** The configurations OLM made for one description of the CSV. */
async function configurations(kind: typeof validating, csvName: string, namespace: string, generateName: string): Promise<WebhookConfiguration[]> {
  const selector = `olm.owner=${csvName},olm.owner.namespace=${namespace},olm.owner.kind=ClusterServiceVersion,olm.webhook-description-generate-name=${generateName}`;
  return (await harness.env.client.list<WebhookConfiguration>(kind, { labelSelector: selector })).items;
}

async function caOf(namespace: string, deployment: string): Promise<string> {
  const secret = await harness.env.client.get<CachedObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace, name: `${deployment}-service-cert` });
  return decode(secret.data?.olmCAKey);
}

describe('admission webhooks', () => {
  it('installs a Validating- and a MutatingWebhookConfiguration with the CA, limited to the OperatorGroup\'s namespaces', async () => {
    const { client } = harness.env;
    const namespace = 'wh-hooks';
    await namespaceWithGroup(client, namespace);
    await defaultServiceAccount(client, namespace);
    const manifest = csv({ namespace, name: 'hooks.v1', deployments: ['hooks-operator'] });
    (manifest.spec as Record<string, unknown>).webhookdefinitions = [validatingWebhook('hooks-operator'), mutatingWebhook('hooks-operator')];
    await client.create(manifest);
    const succeeded = await waitForPhase(client, namespace, 'hooks.v1', 'Succeeded');
    // An InstallWaiting step appears when a reconcile sees the Deployment before it is available (timing).
    expect(entries(succeeded).filter((entry) => !entry.startsWith('Installing/InstallWaiting/'))).toEqual([
      'Pending/RequirementsUnknown/requirements not yet checked',
      'InstallReady/AllRequirementsMet/all requirements found, attempting install',
      'Installing/InstallSucceeded/waiting for install components to report healthy',
      'Succeeded/InstallSucceeded/install strategy completed with no errors',
    ]);
    const caPem = await caOf(namespace, 'hooks-operator');
    const serving = new X509Certificate(decode((await client.get<CachedObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'hooks-operator-service-cert' })).data?.['tls.crt']));
    expect(serving.subjectAltName).toBe(`DNS:hooks-operator-service.${namespace}, DNS:hooks-operator-service.${namespace}.svc, DNS:hooks-operator-service.${namespace}.svc.cluster.local`);
    expect(serving.verify(new X509Certificate(caPem).publicKey)).toBe(true);

    // One Service port for both webhooks, to the pods' target port.
    const service = await client.get<CachedObject & { spec?: { ports?: unknown[]; selector?: unknown } }>({ apiVersion: 'v1', kind: 'Service', namespace, name: 'hooks-operator-service' });
    expect(service.spec?.ports).toEqual([{ name: '8443', port: 8443, targetPort: 9443, protocol: 'TCP' }]);
    expect(service.spec?.selector).toEqual({ app: 'hooks-operator' });

    // The webhooks see only the group's target namespaces: those labelled with the group's UID.
    const og = await groupSynced(client, namespace, 'og');
    const groupLabel = `olm.operatorgroup.uid/${og.metadata!.uid}`;
    const labelled = await client.get({ ...Kinds.namespace, name: namespace });
    expect(labelled.metadata?.labels?.[groupLabel]).toBe('');
    expect((await client.get({ ...Kinds.namespace, name: 'default' })).metadata?.labels?.[groupLabel]).toBeUndefined();
    const clientConfig = (path: string) => ({ service: { name: 'hooks-operator-service', namespace, path, port: 8443 }, caBundle: Buffer.from(caPem).toString('base64') });

    const [validatingConfiguration, ...moreValidating] = await configurations(validating, 'hooks.v1', namespace, 'vwidget.wh.example.com');
    expect(moreValidating).toEqual([]);
    expect(validatingConfiguration!.metadata?.name).toMatch(/^vwidget\.wh\.example\.com-[a-z0-9]{5}$/);
    expect(validatingConfiguration!.metadata?.labels?.['olm.webhook-description-hash']).toMatch(/^[0-9A-Za-z]+$/);
    expect(validatingConfiguration!.webhooks).toEqual([
      {
        name: 'vwidget.wh.example.com',
        rules,
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: { matchLabels: { [groupLabel]: '' } },
        objectSelector: { matchLabels: { validated: 'yes' } },
        sideEffects: 'None',
        timeoutSeconds: 5,
        admissionReviewVersions: ['v1', 'v1beta1'],
        clientConfig: clientConfig('/validate'),
      },
    ]);
    const [mutatingConfiguration] = await configurations(mutating, 'hooks.v1', namespace, 'mwidget.wh.example.com');
    expect(mutatingConfiguration!.webhooks).toEqual([
      {
        name: 'mwidget.wh.example.com',
        rules,
        failurePolicy: 'Ignore',
        namespaceSelector: { matchLabels: { [groupLabel]: '' } },
        sideEffects: 'NoneOnDryRun',
        // The server's defaults.
        matchPolicy: 'Equivalent',
        objectSelector: {},
        timeoutSeconds: 10,
        admissionReviewVersions: ['v1'],
        clientConfig: clientConfig('/mutate'),
        reinvocationPolicy: 'IfNeeded',
      },
    ]);

    // The pods carry the CA's hash; the Secret is readable by their service account.
    const deployment = await client.get<CachedObject & { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } }>({ ...Kinds.deployment, namespace, name: 'hooks-operator' });
    expect(deployment.spec?.template?.metadata?.annotations?.olmcahash).toBe(sha256(caPem));
    expect(await client.find({ ...Kinds.roleBinding, namespace, name: 'hooks-operator-service-cert' })).toBeDefined();
  });

  it('Succeeded → Pending/NeedsReinstall "calculated deployment install is bad" when a configuration is deleted (its CA is gone), and reinstalls it', async () => {
    const { client } = harness.env;
    const namespace = 'wh-missing';
    await namespaceWithGroup(client, namespace);
    await defaultServiceAccount(client, namespace);
    const manifest = csv({ namespace, name: 'missing.v1', deployments: ['missing-operator'] });
    (manifest.spec as Record<string, unknown>).webhookdefinitions = [validatingWebhook('missing-operator')];
    await client.create(manifest);
    await waitForPhase(client, namespace, 'missing.v1', 'Succeeded');
    const [before] = await configurations(validating, 'missing.v1', namespace, 'vwidget.wh.example.com');
    await client.delete({ ...validating, name: before!.metadata!.name! });
    await historyUntil(client, namespace, 'missing.v1', (current) =>
      current.status?.phase === 'Succeeded' && entries(current).includes('Pending/NeedsReinstall/calculated deployment install is bad'),
    );
    const [after, ...more] = await configurations(validating, 'missing.v1', namespace, 'vwidget.wh.example.com');
    expect(more).toEqual([]);
    expect(after!.metadata?.name).not.toBe(before!.metadata?.name);
  });

  it('Succeeded → Failed/ComponentUnhealthy "webhooks not installed" when a description changed; the reinstall updates its configuration and deletes one whose description is gone', async () => {
    const { client } = harness.env;
    const namespace = 'wh-change';
    await namespaceWithGroup(client, namespace);
    await defaultServiceAccount(client, namespace);
    const manifest = csv({ namespace, name: 'change.v1', deployments: ['change-operator'] });
    (manifest.spec as Record<string, unknown>).webhookdefinitions = [validatingWebhook('change-operator'), mutatingWebhook('change-operator')];
    await client.create(manifest);
    await waitForPhase(client, namespace, 'change.v1', 'Succeeded');
    const [before] = await configurations(validating, 'change.v1', namespace, 'vwidget.wh.example.com');
    expect(await configurations(mutating, 'change.v1', namespace, 'mwidget.wh.example.com')).toHaveLength(1);

    await client.patch({ ...Kinds.clusterServiceVersion, namespace, name: 'change.v1' }, { spec: { webhookdefinitions: [validatingWebhook('change-operator', { failurePolicy: 'Ignore' })] } });
    const after = await eventually(
      async () => {
        const [configuration] = await configurations(validating, 'change.v1', namespace, 'vwidget.wh.example.com');
        return configuration?.webhooks?.[0]?.failurePolicy === 'Ignore' ? configuration : undefined;
      },
      { message: 'configuration updated' },
    );
    expect(after.metadata?.name).toBe(before!.metadata?.name);
    expect(after.metadata?.labels?.['olm.webhook-description-hash']).not.toBe(before!.metadata?.labels?.['olm.webhook-description-hash']);
    await eventually(async () => (await configurations(mutating, 'change.v1', namespace, 'mwidget.wh.example.com')).length === 0, { message: 'mutating configuration deleted' });
    // Its configuration carried the old description's hash: not installed until the reinstall.
    const history = await historyUntil(client, namespace, 'change.v1', (current) =>
      current.status?.phase === 'Succeeded' && entries(current).includes('Pending/NeedsReinstall/webhooks not installed'),
    );
    expect(history).toContain('Failed/ComponentUnhealthy/webhooks not installed');
  });

  it('deletes the configurations of a CSV that drops all its webhooks and owns no APIServices', async () => {
    const { client } = harness.env;
    const namespace = 'wh-dropped';
    await namespaceWithGroup(client, namespace);
    await defaultServiceAccount(client, namespace);
    const manifest = csv({ namespace, name: 'dropped.v1', deployments: ['dropped-operator'] });
    (manifest.spec as Record<string, unknown>).webhookdefinitions = [validatingWebhook('dropped-operator'), mutatingWebhook('dropped-operator')];
    await client.create(manifest);
    await waitForPhase(client, namespace, 'dropped.v1', 'Succeeded');
    expect(await configurations(validating, 'dropped.v1', namespace, 'vwidget.wh.example.com')).toHaveLength(1);
    expect(await configurations(mutating, 'dropped.v1', namespace, 'mwidget.wh.example.com')).toHaveLength(1);

    // Nothing left to serve: no serving snapshot is read for it any more, yet its configurations go.
    await client.patch({ ...Kinds.clusterServiceVersion, namespace, name: 'dropped.v1' }, { spec: { webhookdefinitions: null } });
    await eventually(async () => (await configurations(validating, 'dropped.v1', namespace, 'vwidget.wh.example.com')).length === 0, { message: 'validating deleted' });
    await eventually(async () => (await configurations(mutating, 'dropped.v1', namespace, 'mwidget.wh.example.com')).length === 0, { message: 'mutating deleted' });
    await waitForPhase(client, namespace, 'dropped.v1', 'Succeeded');
  });

  it('deletes its configurations with the CSV', async () => {
    const { client } = harness.env;
    const namespace = 'wh-delete';
    await namespaceWithGroup(client, namespace);
    await defaultServiceAccount(client, namespace);
    const manifest = csv({ namespace, name: 'gone.v1', deployments: ['gone-operator'] });
    (manifest.spec as Record<string, unknown>).webhookdefinitions = [validatingWebhook('gone-operator'), mutatingWebhook('gone-operator')];
    await client.create(manifest);
    await waitForPhase(client, namespace, 'gone.v1', 'Succeeded');
    await client.delete({ ...Kinds.clusterServiceVersion, namespace, name: 'gone.v1' });
    await eventually(async () => (await configurations(validating, 'gone.v1', namespace, 'vwidget.wh.example.com')).length === 0, { message: 'validating deleted' });
    await eventually(async () => (await configurations(mutating, 'gone.v1', namespace, 'mwidget.wh.example.com')).length === 0, { message: 'mutating deleted' });
  });
});

describe('conversion webhooks', () => {
  const conversionWebhook = (deploymentName: string, crd: string) => ({
    type: 'ConversionWebhook',
    generateName: 'cgadget.wh.example.com',
    deploymentName,
    containerPort: 443,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    webhookPath: '/convert',
    conversionCRDs: [crd],
  });

  it('points the CRD of an AllNamespaces operator at its Service with the CA, and restores it ("Webhook install failed: …" meanwhile)', async () => {
    const { client } = harness.env;
    const namespace = 'wh-convert';
    await createNamespace(client, namespace);
    await createOperatorGroup(client, namespace, 'og', {});
    await groupSynced(client, namespace, 'og');
    await defaultServiceAccount(client, namespace);
    await client.create(crdManifest('gadgets', 'wh.example.com', 'Gadget', ['v1', 'v2']));
    const manifest = csv({
      namespace,
      name: 'convert.v1',
      deployments: ['convert-operator'],
      installModes: [
        { type: 'OwnNamespace', supported: false },
        { type: 'SingleNamespace', supported: false },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
      ownedCrds: [{ name: 'gadgets.wh.example.com', version: 'v1', kind: 'Gadget' }],
    });
    (manifest.spec as Record<string, unknown>).webhookdefinitions = [
      conversionWebhook('convert-operator', 'gadgets.wh.example.com'),
      validatingWebhook('convert-operator', { generateName: 'vgadget.wh.example.com', objectSelector: undefined }),
    ];
    await client.create(manifest);
    await waitForPhase(client, namespace, 'convert.v1', 'Succeeded');
    const caPem = await caOf(namespace, 'convert-operator');
    const expected = {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { namespace, name: 'convert-operator-service', path: '/convert', port: 443 }, caBundle: Buffer.from(caPem).toString('base64') },
        conversionReviewVersions: ['v1'],
      },
    };
    expect((await client.get<Crd>({ ...Kinds.customResourceDefinition, name: 'gadgets.wh.example.com' })).spec?.conversion).toEqual(expected);
    // An AllNamespaces group: the admission webhook sees every namespace (OLM sets no selector; the server defaults it to {}).
    const [configuration] = await configurations(validating, 'convert.v1', namespace, 'vgadget.wh.example.com');
    expect(configuration!.webhooks?.[0]?.namespaceSelector).toEqual({});

    // The CRD loses its conversion: a webhook error sends the CSV back to InstallReady, which restores it.
    await client.patch({ ...Kinds.customResourceDefinition, name: 'gadgets.wh.example.com' }, { spec: { conversion: { strategy: 'None', webhook: null } } });
    const history = await historyUntil(client, namespace, 'convert.v1', (current) =>
      current.status?.phase === 'Succeeded' && entries(current).includes('InstallReady/ComponentUnhealthy/Webhook install failed: conversionWebhook not ready'),
    );
    expect(history).toContain('Installing/InstallSucceeded/waiting for install components to report healthy');
    expect((await client.get<Crd>({ ...Kinds.customResourceDefinition, name: 'gadgets.wh.example.com' })).spec?.conversion).toEqual(expected);
  });

  it('fails InstallComponentFailed for a conversion webhook of an operator that supports more than AllNamespaces', async () => {
    const { client } = harness.env;
    const namespace = 'wh-convert-own';
    await namespaceWithGroup(client, namespace);
    await defaultServiceAccount(client, namespace);
    await client.create(crdManifest('doohickeys', 'wh.example.com', 'Doohickey', ['v1', 'v2']));
    const manifest = csv({ namespace, name: 'own.v1', deployments: ['own-operator'], ownedCrds: [{ name: 'doohickeys.wh.example.com', version: 'v1', kind: 'Doohickey' }] });
    (manifest.spec as Record<string, unknown>).webhookdefinitions = [conversionWebhook('own-operator', 'doohickeys.wh.example.com')];
    await client.create(manifest);
    const failed = await waitForPhase(client, namespace, 'own.v1', 'Failed', 'InstallComponentFailed');
    expect(failed.status?.message).toBe(
      'install strategy failed: unable to manage conversion webhook: CSVs with conversion webhooks must support only AllNamespaces',
    );
    expect((await client.get<Crd>({ ...Kinds.customResourceDefinition, name: 'doohickeys.wh.example.com' })).spec?.conversion).toEqual({ strategy: 'None' });
    expect((await getCsv(client, namespace, 'own.v1'))?.status?.phase).not.toBe('Succeeded');
  });
});

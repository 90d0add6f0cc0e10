import { createHash, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CachedObject } from '@olm/core';
import { Kinds } from '../src/kinds.js';
import { defaultServiceAccount, csv, eventually, getCsv, historyUntil, namespaceWithGroup, sleep, useController, waitForPhase, type CsvObject } from './helpers.js';

// Serving certificates are valid two years and renewed a day before they expire: on a clock the test moves.
let offsetMs = 0;
const now = () => Date.now() + offsetMs;
const harness = useController({}, { clock: () => new Date(now()) });

const day = 24 * 60 * 60 * 1000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const decode = (value: unknown) => Buffer.from(String(value), 'base64').toString('utf8');
const entries = (current: CsvObject) => (current.status?.conditions ?? []).map((condition) => `${condition.phase}/${condition.reason}/${condition.message}`);
type Status = NonNullable<CsvObject['status']> & { certsRotateAt?: string; certsLastUpdated?: string };

/** A webhook operator (no APIService: a moved clock would leave the local API server distrusting its certificate). */
async function webhookOperator(namespace: string): Promise<{ name: string; deployment: string }> {
  const { client } = harness.env;
  const name = `${namespace}.v1`;
  const deployment = `${namespace}-operator`;
  await namespaceWithGroup(client, namespace);
  await defaultServiceAccount(client, namespace);
  const manifest = csv({ namespace, name, deployments: [deployment] });
  (manifest.spec as Record<string, unknown>).webhookdefinitions = [
    { type: 'ValidatingAdmissionWebhook', generateName: `v.${namespace}.example.com`, deploymentName: deployment, sideEffects: 'None', admissionReviewVersions: ['v1'] },
  ];
  await client.create(manifest);
  return { name, deployment };
}

interface Served {
  readonly caPem: string;
  readonly certificate: X509Certificate;
  readonly templateHash: string | undefined;
  readonly webhookCaPem: string;
}

async function served(namespace: string, deployment: string, name: string): Promise<Served> {
  const { client } = harness.env;
  const secret = await client.get<CachedObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace, name: `${deployment}-service-cert` });
  const live = await client.get<CachedObject & { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } }>({ ...Kinds.deployment, namespace, name: deployment });
  const configurations = await client.list<CachedObject & { webhooks?: Array<{ clientConfig?: { caBundle?: string } }> }>(
    { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
    { labelSelector: `olm.owner=${name},olm.owner.namespace=${namespace}` },
  );
  return {
    caPem: decode(secret.data?.olmCAKey),
    certificate: new X509Certificate(decode(secret.data?.['tls.crt'])),
    templateHash: live.spec?.template?.metadata?.annotations?.olmcahash,
    webhookCaPem: decode(configurations.items[0]?.webhooks?.[0]?.clientConfig?.caBundle),
  };
}

describe('serving certificate rotation', () => {
  it('Succeeded → Pending/NeedsCertRotation once the certificate is within a day of expiring: new CA and certificate, pods roll', async () => {
    const { client } = harness.env;
    const namespace = 'rot-succeeded';
    const { name, deployment } = await webhookOperator(namespace);
    const succeeded = await waitForPhase(client, namespace, name, 'Succeeded');
    const before = await served(namespace, deployment, name);
    const rotateAt = Date.parse((succeeded.status as Status).certsRotateAt!);
    expect(rotateAt).toBe(Date.parse(before.certificate.validTo) - day);
    expect(before.webhookCaPem).toBe(before.caPem);

    // A minute before the renewal time: nothing happens.
    offsetMs = rotateAt - 60_000 - Date.now();
    await sleep(800);
    const early = await getCsv(client, namespace, name);
    expect(early?.status?.phase).toBe('Succeeded');
    expect(entries(early!).some((entry) => entry.includes('NeedsCertRotation'))).toBe(false);

    offsetMs = rotateAt + 60_000 - Date.now();
    const history = await historyUntil(client, namespace, name, (current) =>
      current.status?.phase === 'Succeeded' && entries(current).includes('Pending/NeedsCertRotation/CSV owns resources that require a cert refresh'),
    );
    expect(history).toContain('InstallReady/AllRequirementsMet/all requirements found, attempting install');
    const after = await served(namespace, deployment, name);
    expect(after.caPem).not.toBe(before.caPem);
    expect(after.certificate.serialNumber).not.toBe(before.certificate.serialNumber);
    expect(Math.abs(Date.parse(after.certificate.validFrom) - now())).toBeLessThan(60_000);
    expect(after.certificate.verify(new X509Certificate(after.caPem).publicKey)).toBe(true);
    expect(after.webhookCaPem).toBe(after.caPem);
    // The pod template's hash follows the CA: the pods restart with the new certificate.
    expect(after.templateHash).toBe(sha256(after.caPem));
    expect(after.templateHash).not.toBe(before.templateHash);
    const status = (await getCsv(client, namespace, name))!.status as Status;
    expect(Date.parse(status.certsRotateAt!)).toBe(Date.parse(after.certificate.validTo) - day);
    expect(Math.abs(Date.parse(status.certsLastUpdated!) - now())).toBeLessThan(60_000);
  });

  it('Failed → Pending/NeedsCertRotation "owned APIServices need cert refresh" when renewal comes due while it is failed', async () => {
    const { client, server } = harness.env;
    const namespace = 'rot-failed';
    const { name, deployment } = await webhookOperator(namespace);
    const succeeded = await waitForPhase(client, namespace, name, 'Succeeded');
    const before = await served(namespace, deployment, name);
    // The deployment stops progressing: the CSV fails, and stays so (the install check is unrecoverable).
    server.failDeployment(namespace, deployment);
    await waitForPhase(client, namespace, name, 'Failed', 'InstallCheckFailed');

    offsetMs = Date.parse((succeeded.status as Status).certsRotateAt!) + 60_000 - Date.now();
    const history = await historyUntil(client, namespace, name, (current) => entries(current).includes('Pending/NeedsCertRotation/owned APIServices need cert refresh'));
    expect(history).toContain(`Failed/InstallCheckFailed/install failed: deployment "${deployment}" exceeded its progress deadline`);
    // The reinstall renews the certificate (the deployment is still failing, so the CSV fails again).
    const after = await eventually(async () => {
      const current = await served(namespace, deployment, name);
      return current.caPem !== before.caPem && current.templateHash === sha256(current.caPem) ? current : undefined;
    }, { message: 'certificate renewed' });
    expect(Math.abs(Date.parse(after.certificate.validFrom) - now())).toBeLessThan(60_000);

    server.recoverDeployment(namespace, deployment);
    await waitForPhase(client, namespace, name, 'Succeeded');
    expect((await served(namespace, deployment, name)).caPem).toBe(after.caPem);
  });
});

import { createHash, X509Certificate } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { CachedObject } from '@olm/core';
import { Kinds } from '../src/kinds.js';
import { startApiBackend, type ApiBackend } from './api-backend.js';
import {
  defaultServiceAccount,
  csv,
  eventually,
  getCsv,
  historyUntil,
  namespaceWithGroup,
  sleep,
  useController,
  waitForPhase,
  type CsvObject,
  type RbacObject,
} from './helpers.js';

// The local API server checks service-backed APIServices every 100 ms (kube-aggregator's availability).
const harness = useController({ apiServiceCheckIntervalMs: 100 });
const backends: ApiBackend[] = [];
afterAll(async () => {
  for (const backend of backends) await backend.close();
});

const day = 24 * 60 * 60 * 1000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const decode = (value: unknown) => Buffer.from(String(value), 'base64').toString('utf8');
const entries = (current: CsvObject) => (current.status?.conditions ?? []).map((condition) => `${condition.phase}/${condition.reason}/${condition.message}`);

type Secret = CachedObject & { type?: string; data?: Record<string, string> };
type Service = CachedObject & { spec?: { clusterIP?: string; selector?: Record<string, string>; ports?: Array<Record<string, unknown>> } };
type ApiService = CachedObject & {
  spec?: { group?: string; version?: string; service?: Record<string, unknown>; caBundle?: string; groupPriorityMinimum?: number; versionPriority?: number };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string }> };
};
type Deployment = CachedObject & {
  spec?: { template?: { metadata?: { annotations?: Record<string, string> }; spec?: { serviceAccountName?: string; volumes?: unknown[]; containers?: Array<{ volumeMounts?: unknown[] }> } } };
};

interface Operator {
  readonly namespace: string;
  readonly name: string;
  readonly deployment: string;
  readonly group: string;
  readonly backend: ApiBackend;
  readonly service: string;
  readonly secret: string;
  readonly apiService: string;
}

/**
 * A namespace with an operator owning the APIService `v1.<group>` (kind Widget), served by a backend on
 * this machine. The Service OLM will manage is made first with `clusterIP: 127.0.0.1` (OLM keeps what
 * the cluster allocated), so that the local API server's aggregator reaches the backend.
 */
async function operatorWithApiService(namespace: string, backendMode: ApiBackend['mode'] = 'serving'): Promise<Operator> {
  const { client } = harness.env;
  const name = `${namespace}.v1`;
  const deployment = `${namespace}-operator`;
  const group = `${namespace}.example.com`;
  const service = `${deployment}-service`;
  const secret = `${service}-cert`;
  await namespaceWithGroup(client, namespace);
  await defaultServiceAccount(client, namespace);
  const backend = await startApiBackend(client, { namespace, secret, groupVersion: `${group}/v1`, resources: [{ name: 'widgets', kind: 'Widget' }] });
  backend.mode = backendMode;
  backends.push(backend);
  await client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: service, namespace }, spec: { clusterIP: '127.0.0.1', ports: [{ port: backend.port }] } });
  const manifest = csv({ namespace, name, deployments: [deployment] });
  (manifest.spec as Record<string, unknown>).apiservicedefinitions = {
    owned: [{ group, version: 'v1', kind: 'Widget', name: 'widgets', displayName: 'Widgets', deploymentName: deployment, containerPort: backend.port }],
  };
  await client.create(manifest);
  return { namespace, name, deployment, group, backend, service, secret, apiService: `v1.${group}` };
}

const secretOf = (operator: Operator) => harness.env.client.get<Secret>({ apiVersion: 'v1', kind: 'Secret', namespace: operator.namespace, name: operator.secret });
const apiServiceOf = (operator: Operator) => harness.env.client.get<ApiService>({ ...Kinds.apiService, name: operator.apiService });
const deploymentOf = (operator: Operator) => harness.env.client.get<Deployment>({ ...Kinds.deployment, namespace: operator.namespace, name: operator.deployment });
const isAvailable = (apiService: ApiService) => apiService.status?.conditions?.some((condition) => condition.type === 'Available' && condition.status === 'True') ?? false;

describe('owned APIServices', () => {
  it('installs the Service, serving certificate, RBAC and APIService, and Succeeds once the APIService is Available', async () => {
    const { client } = harness.env;
    const operator = await operatorWithApiService('as-install');
    const { namespace, service, secret } = operator;
    const succeeded = await waitForPhase(client, namespace, operator.name, 'Succeeded');
    const owner = await getCsv(client, namespace, operator.name);
    const ownerReference = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: operator.name, uid: owner!.metadata!.uid, controller: false, blockOwnerDeletion: false };
    const ownerLabels = { 'olm.owner': operator.name, 'olm.owner.namespace': namespace, 'olm.owner.kind': 'ClusterServiceVersion' };

    // The Service selects the deployment's pods on the APIService's port; the address the cluster gave it stays.
    const liveService = await client.get<Service>({ apiVersion: 'v1', kind: 'Service', namespace, name: service });
    expect(liveService.spec?.selector).toEqual({ app: operator.deployment });
    expect(liveService.spec?.ports).toEqual([{ name: String(operator.backend.port), port: operator.backend.port, targetPort: operator.backend.port, protocol: 'TCP' }]);
    expect(liveService.spec?.clusterIP).toBe('127.0.0.1');
    expect(liveService.metadata?.labels).toMatchObject({ 'olm.managed': 'true' });
    expect(liveService.metadata?.ownerReferences).toEqual([ownerReference]);

    // The Secret: a serving certificate for the Service's names, signed by the CA it carries.
    const liveSecret = await secretOf(operator);
    expect(liveSecret.type).toBe('kubernetes.io/tls');
    expect(Object.keys(liveSecret.data ?? {}).sort()).toEqual(['olmCAKey', 'tls.crt', 'tls.key']);
    const caPem = decode(liveSecret.data!.olmCAKey);
    const keyPem = decode(liveSecret.data!['tls.key']);
    expect(liveSecret.metadata?.annotations).toEqual({ olmcahash: sha256(caPem) });
    expect(liveSecret.metadata?.labels).toMatchObject({ 'olm.managed': 'true' });
    expect(liveSecret.metadata?.ownerReferences).toEqual([ownerReference]);
    const ca = new X509Certificate(caPem);
    const serving = new X509Certificate(decode(liveSecret.data!['tls.crt']));
    expect(ca.ca).toBe(true);
    expect(ca.subject).toBe('O=Red Hat\\, Inc.');
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(serving.ca).toBe(false);
    expect(serving.subjectAltName).toBe(`DNS:${service}.${namespace}, DNS:${service}.${namespace}.svc, DNS:${service}.${namespace}.svc.cluster.local`);
    expect(serving.checkIssued(ca)).toBe(true);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.checkPrivateKey(await import('node:crypto').then(({ createPrivateKey }) => createPrivateKey(keyPem)))).toBe(true);
    expect(keyPem).toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
    expect(serving.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(serving.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']));
    for (const certificate of [ca, serving]) {
      const from = Date.parse(certificate.validFrom);
      expect(Math.abs(from - Date.now())).toBeLessThan(60_000);
      expect(Date.parse(certificate.validTo) - from).toBe(730 * day);
    }
    // Renewal is due a day before expiry.
    expect(Date.parse(succeeded.status!['certsRotateAt' as never] as unknown as string)).toBe(Date.parse(serving.validTo) - day);
    expect((succeeded.status as Record<string, unknown>).certsLastUpdated).toBeDefined();

    // RBAC: the deployment's service account may read the Secret, delegate auth and read the auth config.
    // OLM writes `apiGroup: ""`; the server drops it (an empty omitempty string), as kube-apiserver does.
    const subjects = [{ kind: 'ServiceAccount', name: 'default', namespace }];
    const role = await client.get<RbacObject>({ ...Kinds.role, namespace, name: secret });
    expect(role.rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: [secret] }]);
    expect(role.metadata?.ownerReferences).toEqual([ownerReference]);
    const roleBinding = await client.get<RbacObject>({ ...Kinds.roleBinding, namespace, name: secret });
    expect(roleBinding.subjects).toEqual(subjects);
    expect(roleBinding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: secret });
    const delegator = await client.get<RbacObject>({ ...Kinds.clusterRoleBinding, name: `${service}-system:auth-delegator` });
    expect(delegator.subjects).toEqual(subjects);
    expect(delegator.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' });
    expect(delegator.metadata?.labels).toEqual({ 'olm.managed': 'true', ...ownerLabels });
    const reader = await client.get<RbacObject>({ ...Kinds.roleBinding, namespace: 'kube-system', name: `${service}-auth-reader` });
    expect(reader.subjects).toEqual(subjects);
    expect(reader.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' });

    // The APIService points at the Service with the CA, and the local API server found it Available.
    const apiService = await apiServiceOf(operator);
    expect(apiService.metadata?.labels).toEqual(ownerLabels);
    expect(apiService.spec).toMatchObject({
      group: operator.group,
      version: 'v1',
      groupPriorityMinimum: 2000,
      versionPriority: 15,
      service: { namespace, name: service, port: operator.backend.port },
    });
    expect(decode(apiService.spec?.caBundle)).toBe(caPem);
    expect(isAvailable(apiService)).toBe(true);

    // The pods mount the certificate and carry the CA's hash.
    const template = (await deploymentOf(operator)).spec?.template;
    expect(template?.metadata?.annotations?.olmcahash).toBe(sha256(caPem));
    expect(template?.spec?.serviceAccountName).toBe('default');
    expect(template?.spec?.volumes).toEqual(
      expect.arrayContaining([
        // defaultMode 420 is the server's default.
        { name: 'apiservice-cert', secret: { secretName: secret, items: [{ key: 'tls.crt', path: 'apiserver.crt' }, { key: 'tls.key', path: 'apiserver.key' }], defaultMode: 420 } },
        { name: 'webhook-cert', secret: { secretName: secret, items: [{ key: 'tls.crt', path: 'tls.crt' }, { key: 'tls.key', path: 'tls.key' }], defaultMode: 420 } },
      ]),
    );
    expect(template?.spec?.containers?.[0]?.volumeMounts).toEqual([
      { name: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' },
      { name: 'webhook-cert', mountPath: '/tmp/k8s-webhook-server/serving-certs' },
    ]);

    // Once Succeeded, the per-API ClusterRoles of the owned APIService (written one after the other: each is waited for).
    const clusterRole = (suffix: string) => eventually(() => client.find<RbacObject>({ ...Kinds.clusterRole, name: `widgets-v1-${suffix}` }), { message: `APIService ${suffix} role` });
    const admin = await clusterRole('admin');
    expect(admin.rules).toEqual([{ verbs: ['*'], apiGroups: [operator.group], resources: ['widgets'] }]);
    expect(admin.metadata?.ownerReferences?.[0]).toMatchObject({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: operator.apiService });
    expect((await clusterRole('view')).metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'APIService', name: operator.apiService });
  });

  it('stays Installing with "apiServices not installed" while the APIService is not Available, and Succeeds once it is', async () => {
    const { client } = harness.env;
    const operator = await operatorWithApiService('as-waiting', 'refusing');
    const { namespace } = operator;
    await eventually(async () => (await getCsv(client, namespace, operator.name))?.status?.message === 'apiServices not installed', { message: 'apiServices not installed' });
    // The deployment is ready, the APIService is not: the CSV keeps waiting on it.
    await eventually(async () => {
      const deployment = (await deploymentOf(operator)) as Deployment & { status?: { conditions?: Array<{ type: string; status: string }> } };
      return deployment.status?.conditions?.some((condition) => condition.type === 'Available' && condition.status === 'True');
    }, { message: 'deployment available' });
    const unavailable = await eventually(async () => {
      const apiService = await apiServiceOf(operator);
      return apiService.status?.conditions?.find((condition) => condition.type === 'Available' && condition.status === 'False');
    }, { message: 'APIService checked unavailable' });
    expect(unavailable.reason).toBe('FailedDiscoveryCheck');
    await sleep(500);
    const waiting = await getCsv(client, namespace, operator.name);
    expect(waiting?.status).toMatchObject({ phase: 'Installing', reason: 'InstallWaiting', message: 'apiServices not installed' });

    operator.backend.mode = 'serving';
    await waitForPhase(client, namespace, operator.name, 'Succeeded');

    // An APIService that stops serving takes a Succeeded CSV back through Failed to a reinstall.
    operator.backend.mode = 'refusing';
    const history = await historyUntil(client, namespace, operator.name, (current) => entries(current).includes('Pending/NeedsReinstall/apiServices not installed'));
    expect(history).toContain('Failed/ComponentUnhealthy/apiServices not installed');
    operator.backend.mode = 'serving';
    await waitForPhase(client, namespace, operator.name, 'Succeeded');
  });

  it('Succeeded → Failed/APIServiceResourceIssue when its Secret is deleted, then → Pending/APIServiceResourcesNeedReinstall and a new certificate', async () => {
    const { client } = harness.env;
    const operator = await operatorWithApiService('as-secret');
    const { namespace } = operator;
    await waitForPhase(client, namespace, operator.name, 'Succeeded');
    const before = await secretOf(operator);
    const hashBefore = (await deploymentOf(operator)).spec?.template?.metadata?.annotations?.olmcahash;

    await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace, name: operator.secret });
    const missing = `secrets "${operator.secret}" not found`;
    const history = await historyUntil(client, namespace, operator.name, (current) =>
      current.status?.phase === 'Succeeded' && entries(current).includes(`Pending/APIServiceResourcesNeedReinstall/${missing}`),
    );
    expect(history).toContain(`Failed/APIServiceResourceIssue/${missing}`);
    const events = await client.list<CachedObject & { reason?: string; type?: string; message?: string }>(
      { apiVersion: 'v1', kind: 'Event' },
      { namespace, fieldSelector: `involvedObject.name=${operator.name}` },
    );
    expect(events.items).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'APIServiceResourceIssue', message: missing }));

    // A new CA and certificate everywhere: Secret, APIService, pod template.
    const after = await secretOf(operator);
    const caPem = decode(after.data!.olmCAKey);
    expect(caPem).not.toBe(decode(before.data!.olmCAKey));
    expect(decode(after.data!['tls.crt'])).not.toBe(decode(before.data!['tls.crt']));
    expect(decode((await apiServiceOf(operator)).spec?.caBundle)).toBe(caPem);
    const hashAfter = (await deploymentOf(operator)).spec?.template?.metadata?.annotations?.olmcahash;
    expect(hashAfter).toBe(sha256(caPem));
    expect(hashAfter).not.toBe(hashBefore);
  });

  it('Succeeded → Failed/APIServiceResourceIssue "… is unadoptable" stays Failed while another owner holds the APIService', async () => {
    const { client } = harness.env;
    const operator = await operatorWithApiService('as-taken');
    const { namespace } = operator;
    await waitForPhase(client, namespace, operator.name, 'Succeeded');
    const reference = { ...Kinds.apiService, name: operator.apiService };
    await client.patch(reference, { metadata: { labels: { 'olm.owner': 'someone-else.v1' } } });
    const failed = await waitForPhase(client, namespace, operator.name, 'Failed', 'APIServiceResourceIssue');
    expect(failed.status?.message).toBe(`${operator.apiService} is unadoptable`);
    // Not actionable: reinstalling cannot take the APIService, so no APIServiceResourcesNeedReinstall.
    await sleep(600);
    const still = await getCsv(client, namespace, operator.name);
    expect(still?.status).toMatchObject({ phase: 'Failed', reason: 'APIServiceResourceIssue' });
    expect(entries(still!).some((entry) => entry.startsWith('Pending/APIServiceResourcesNeedReinstall'))).toBe(false);

    await client.patch(reference, { metadata: { labels: { 'olm.owner': operator.name } } });
    await waitForPhase(client, namespace, operator.name, 'Succeeded');
  });

  it('→ Failed/APIServiceInstallFailed when the discovery document of an Available APIService cannot be read, and Succeeds once it can', async () => {
    const { client } = harness.env;
    const operator = await operatorWithApiService('as-garbage', 'garbage');
    const { namespace } = operator;
    const failed = await waitForPhase(client, namespace, operator.name, 'Failed', 'APIServiceInstallFailed');
    expect(failed.status?.message).toBe(`APIService install failed: the discovery document of ${operator.group}/v1 is not an APIResourceList`);
    // The local API server saw a 2xx answer: the APIService itself is Available.
    expect(isAvailable(await apiServiceOf(operator))).toBe(true);
    await sleep(300);
    expect((await getCsv(client, namespace, operator.name))?.status).toMatchObject({ phase: 'Failed', reason: 'APIServiceInstallFailed' });

    operator.backend.mode = 'serving';
    const succeeded = await waitForPhase(client, namespace, operator.name, 'Succeeded');
    expect(entries(succeeded).at(-1)).toBe('Succeeded/InstallSucceeded/install strategy completed with no errors');
  });

  it('deletes the APIService and the bindings outside its namespace with the CSV', async () => {
    const { client } = harness.env;
    const operator = await operatorWithApiService('as-delete');
    const { namespace, service } = operator;
    await waitForPhase(client, namespace, operator.name, 'Succeeded');
    await client.delete({ ...Kinds.clusterServiceVersion, namespace, name: operator.name });
    await eventually(async () => !(await client.find({ ...Kinds.apiService, name: operator.apiService })), { message: 'APIService deleted' });
    await eventually(async () => !(await client.find({ ...Kinds.clusterRoleBinding, name: `${service}-system:auth-delegator` })), { message: 'auth delegator binding deleted' });
    await eventually(async () => !(await client.find({ ...Kinds.roleBinding, namespace: 'kube-system', name: `${service}-auth-reader` })), { message: 'auth reader binding deleted' });
  });
});

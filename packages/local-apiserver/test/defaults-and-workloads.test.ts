import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, kubeConfigOf, startTestServer } from './helpers.js';
import { kubectlMinorVersion, runKubectl } from './kubectl-client.js';

const namespace = 'default';
const deployments = `/apis/apps/v1/namespaces/${namespace}/deployments`;

function deployment(name: string, image: string): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: 'main', image, ports: [{ containerPort: 8080 }], readinessProbe: { httpGet: { port: 8080 } } }],
          volumes: [{ name: 'certs', secret: { secretName: 'certs' } }],
        },
      },
    },
  };
}

describe('defaulting as kube-apiserver', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  it('defaults a Deployment and its pod template', async () => {
    const created = await call(server, 'POST', deployments, deployment('defaulted', 'example.com/op'));
    expect(created.status).toBe(201);
    const spec = created.body.spec;
    expect(spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } } });
    expect(spec.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', securityContext: {}, terminationGracePeriodSeconds: 30 });
    expect(spec.template.spec.containers[0]).toEqual({
      name: 'main',
      image: 'example.com/op',
      ports: [{ containerPort: 8080, protocol: 'TCP' }],
      resources: {},
      readinessProbe: { httpGet: { path: '/', port: 8080, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      // No tag means :latest, which is always pulled.
      imagePullPolicy: 'Always',
    });
    expect(spec.template.spec.volumes).toEqual([{ name: 'certs', secret: { secretName: 'certs', defaultMode: 420 } }]);
    // A partial rolling update gets the other half defaulted.
    const partial = deployment('partial', 'example.com/op:1.0');
    (partial['spec'] as any).strategy = { rollingUpdate: { maxSurge: 1 } };
    expect((await call(server, 'POST', deployments, partial)).body.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } });
  });

  it('defaults Services and keeps their allocated fields across updates', async () => {
    const services = `/api/v1/namespaces/${namespace}/services`;
    const created = await call(server, 'POST', services, { metadata: { name: 'api' }, spec: { selector: { app: 'x' }, ports: [{ name: 'https', port: 443, targetPort: 8443 }, { name: 'metrics', port: 9090 }] } });
    expect(created.status).toBe(201);
    const spec = created.body.spec;
    expect(spec).toMatchObject({ type: 'ClusterIP', sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster', clusterIPs: [spec.clusterIP] });
    expect(spec.ports).toEqual([
      { name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 },
      { name: 'metrics', port: 9090, protocol: 'TCP', targetPort: 9090 },
    ]);
    expect(created.body.status).toEqual({ loadBalancer: {} });
    // An update that leaves the cluster IP out keeps it.
    const updated = await call(server, 'PUT', `${services}/api`, { metadata: { name: 'api' }, spec: { selector: { app: 'y' }, ports: [{ port: 443 }] } });
    expect(updated.status).toBe(200);
    expect(updated.body.spec).toMatchObject({ clusterIP: spec.clusterIP, clusterIPs: [spec.clusterIP], ipFamilies: ['IPv4'], selector: { app: 'y' } });
    const headless = await call(server, 'POST', services, { metadata: { name: 'headless' }, spec: { clusterIP: 'None', selector: { app: 'x' }, ports: [{ port: 80 }] } });
    expect(headless.body.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4'] });
    const external = await call(server, 'POST', services, { metadata: { name: 'external' }, spec: { type: 'ExternalName', externalName: 'example.com' } });
    expect(external.body.spec).toEqual({ type: 'ExternalName', sessionAffinity: 'None', externalName: 'example.com' });
    const nodePort = await call(server, 'POST', services, { metadata: { name: 'node' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    expect(nodePort.body.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect(nodePort.body.spec.externalTrafficPolicy).toBe('Cluster');
  });

  it('defaults Pods, webhook configurations and APIService ports', async () => {
    const pod = await call(server, 'POST', `/api/v1/namespaces/${namespace}/pods`, {
      metadata: { name: 'pod' },
      spec: { containers: [{ name: 'c', image: 'busybox:1.36', env: [{ name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }] }] },
    });
    expect(pod.status).toBe(201);
    expect(pod.body.spec).toMatchObject({ serviceAccountName: 'default', serviceAccount: 'default', enableServiceLinks: true, priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(pod.body.spec.containers[0]).toMatchObject({ imagePullPolicy: 'IfNotPresent', env: [{ name: 'NS', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } }] });
    expect(pod.body.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    const webhook = await call(server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      metadata: { name: 'hooks' },
      webhooks: [{ name: 'v.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', clientConfig: { service: { name: 's', namespace } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }],
    });
    expect(webhook.body.webhooks[0]).toEqual({
      name: 'v.example.com',
      clientConfig: { service: { namespace, name: 's', port: 443 } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      sideEffects: 'None',
      timeoutSeconds: 10,
      admissionReviewVersions: ['v1'],
    });
    const apiService = await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      metadata: { name: 'v1.things.example.com' },
      spec: { group: 'things.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, service: { name: 's', namespace } },
    });
    expect(apiService.body.spec.service).toEqual({ namespace, name: 's', port: 443 });
  });
});

describe('the workload simulation records what kube-controller-manager does', () => {
  let server: ApiServer;
  let core: CoreV1Api;
  let workDir: string;

  beforeAll(async () => {
    server = await startTestServer({ simulateWorkloadPods: true, tls: true });
    const config = kubeConfigOf(server);
    core = config.makeApiClient(CoreV1Api);
    workDir = mkdtempSync(join(tmpdir(), 'olm-workloads-'));
  });

  afterAll(async () => {
    await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const eventsFor = async (kind: string, name: string) =>
    (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}` })).items;

  it('sets revisions and pod-template-hash labels, and records ScalingReplicaSet and SuccessfulCreate events', async () => {
    expect((await call(server, 'POST', deployments, deployment('web', 'example.com/web:1'))).status).toBe(201);
    const replicaSet = await eventually(async () => {
      const list = (await call(server, 'GET', `/apis/apps/v1/namespaces/${namespace}/replicasets?labelSelector=app%3Dweb`)).body.items;
      expect(list).toHaveLength(1);
      return list[0];
    });
    const hash = replicaSet.metadata.labels['pod-template-hash'];
    expect(replicaSet.metadata.name).toBe(`web-${hash}`);
    expect(replicaSet.metadata.annotations).toEqual({ 'deployment.kubernetes.io/desired-replicas': '1', 'deployment.kubernetes.io/max-replicas': '2', 'deployment.kubernetes.io/revision': '1' });
    expect((await call(server, 'GET', `${deployments}/web`)).body.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
    const pod = await eventually(async () => {
      const pods = (await call(server, 'GET', `/api/v1/namespaces/${namespace}/pods?labelSelector=pod-template-hash%3D${hash}`)).body.items;
      expect(pods).toHaveLength(1);
      return pods[0];
    });
    const scaling = await eventually(async () => {
      const events = await eventsFor('Deployment', 'web');
      expect(events).toHaveLength(1);
      return events[0]!;
    });
    expect(scaling).toMatchObject({
      reason: 'ScalingReplicaSet',
      message: `Scaled up replica set web-${hash} from 0 to 1`,
      type: 'Normal',
      count: 1,
      source: { component: 'deployment-controller' },
      reportingComponent: 'deployment-controller',
      reportingInstance: '',
      involvedObject: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'web', namespace },
    });
    expect(scaling.firstTimestamp).toEqual(scaling.lastTimestamp);
    expect(scaling.metadata?.name).toMatch(/^web\.[0-9a-f]+$/);
    const created = await eventually(async () => {
      const events = await eventsFor('ReplicaSet', replicaSet.metadata.name);
      expect(events).toHaveLength(1);
      return events[0]!;
    });
    expect(created).toMatchObject({ reason: 'SuccessfulCreate', message: `Created pod: ${pod.metadata.name}`, source: { component: 'replicaset-controller' }, reportingComponent: 'replicaset-controller' });

    // A new template is revision 2; the old ReplicaSet is scaled down.
    const patched = await call(server, 'PATCH', `${deployments}/web`, { spec: { template: { spec: { containers: [{ name: 'main', image: 'example.com/web:2' }] } } } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    expect(patched.status).toBe(200);
    await eventually(async () => expect((await call(server, 'GET', `${deployments}/web`)).body.metadata.annotations['deployment.kubernetes.io/revision']).toBe('2'));
    const messages = await eventually(async () => {
      const events = (await eventsFor('Deployment', 'web')).map((event) => event.message);
      expect(events).toHaveLength(3);
      return events;
    });
    expect(messages).toContain(`Scaled down replica set web-${hash} from 1 to 0`);

    const minor = kubectlMinorVersion();
    if (minor === undefined) return;
    const described = await runKubectl(['describe', 'deployment', 'web', '-n', namespace], { env: { ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: workDir, KUBECACHEDIR: join(workDir, 'cache') }, cwd: workDir });
    expect(described.code).toBe(0);
    expect(described.stdout).toMatch(/Normal\s+ScalingReplicaSet\s+.*deployment-controller\s+Scaled up replica set web-/);
  });
});

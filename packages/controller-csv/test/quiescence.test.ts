import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeClient } from '@olm/controller-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiBackend, type ApiBackend } from './api-backend.js';
import { crdManifest, csv, defaultServiceAccount, grantPermissions, namespaceWithGroup, sleep, startController, startEnvironment, waitForPhase, type Environment } from './helpers.js';

/**
 * Once an operator is installed, OLM has nothing left to write: the objects the server defaulted
 * (imagePullPolicy, protocol, defaultMode, webhook timeouts, …) and reordered (Go struct order,
 * sorted maps) are not drift. A comparison that treats them as drift rewrites them forever (a write
 * the server finds changes nothing is still a request on every reconcile).
 */

/** An HTTP proxy in front of the API server that logs the controller's writes (every request but GET). */
async function writeLoggingProxy(target: string): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const requests: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    if (incoming.method !== 'GET') requests.push(`${incoming.method} ${incoming.url ?? ''}`);
    const forwarded = request({ host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: upstream.host } }, (response) => {
      outgoing.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let env: Environment;
let proxy: Awaited<ReturnType<typeof writeLoggingProxy>>;
let controller: Awaited<ReturnType<typeof startController>>;
const backends: ApiBackend[] = [];
beforeAll(async () => {
  env = await startEnvironment({ apiServiceCheckIntervalMs: 100 });
  proxy = await writeLoggingProxy(env.server.url);
  const client = new KubeClient({ kubeconfig: env.server.kubeconfig.replace(env.server.url, proxy.url), requestTimeoutMs: 5_000 });
  controller = await startController(env, { client });
});
afterAll(async () => {
  await controller.stop();
  for (const backend of backends) await backend.close();
  await proxy.close();
  await env.stop();
});

/** Writes to the store other than Events and Leases (which are expected to keep coming), as `kind ns/name (manager)`. */
function recordWrites(): { writes: string[]; stop(): void } {
  const writes: string[] = [];
  const stop = env.server.cluster.store.subscribe((event) => {
    if (event.resource === '/events' || event.resource === 'coordination.k8s.io/leases') return;
    const managers = (event.object.metadata.managedFields ?? []).map((entry) => entry.manager).join(',');
    writes.push(`${event.type} ${event.resource} ${event.object.metadata.namespace ?? ''}/${event.object.metadata.name ?? ''} (${managers})`);
  });
  return { writes, stop };
}

function webhook(type: string, generateName: string, deploymentName: string): Record<string, unknown> {
  return {
    type,
    generateName,
    deploymentName,
    containerPort: 8443,
    targetPort: 9443,
    rules: [{ operations: ['CREATE'], apiGroups: ['quiet.example.com'], apiVersions: ['v1'], resources: ['gizmos'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    webhookPath: '/hook',
  };
}

describe('an installed operator', () => {
  it('leaves OLM nothing to write once Succeeded (deployments, RBAC, webhooks, APIServices, CRDs)', async () => {
    const { client } = env;
    const namespace = 'quiet';
    await namespaceWithGroup(client, namespace);
    await defaultServiceAccount(client, namespace);
    await client.create(crdManifest('gizmos', 'quiet.example.com', 'Gizmo'));

    const deployment = 'quiet-operator';
    const service = `${deployment}-service`;
    const backend = await startApiBackend(client, { namespace, secret: `${service}-cert`, groupVersion: 'api.quiet.example.com/v1', resources: [{ name: 'things', kind: 'Thing' }] });
    backends.push(backend);
    await client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: service, namespace }, spec: { clusterIP: '127.0.0.1', ports: [{ port: backend.port }] } });

    const manifest = csv({
      namespace,
      name: 'quiet.v1',
      deployments: [deployment],
      serviceAccounts: ['quiet-operator'],
      ownedCrds: [{ name: 'gizmos.quiet.example.com', version: 'v1', kind: 'Gizmo' }],
      rules: [{ apiGroups: ['quiet.example.com'], resources: ['gizmos'], verbs: ['get', 'list', 'watch'] }],
    });
    const spec = manifest.spec as Record<string, any>;
    const template = spec.install.spec.deployments[0].spec.template;
    template.spec.serviceAccountName = 'quiet-operator';
    template.spec.containers[0] = {
      name: 'operator',
      image: 'example.com/operator:v1',
      ports: [{ containerPort: 9443 }, { name: 'metrics', containerPort: 8080 }],
      env: [{ name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } } }],
      readinessProbe: { httpGet: { path: '/readyz', port: 8081 } },
      resources: { requests: { cpu: '10m', memory: '64Mi' } },
    };
    spec.install.spec.clusterPermissions = [{ serviceAccountName: 'quiet-operator', rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] }] }];
    spec.webhookdefinitions = [webhook('ValidatingAdmissionWebhook', 'vgizmo.quiet.example.com', deployment), webhook('MutatingAdmissionWebhook', 'mgizmo.quiet.example.com', deployment)];
    spec.apiservicedefinitions = {
      owned: [{ group: 'api.quiet.example.com', version: 'v1', kind: 'Thing', name: 'things', displayName: 'Things', deploymentName: deployment, containerPort: backend.port }],
    };
    await grantPermissions(client, manifest);
    await client.create(manifest);
    await waitForPhase(client, namespace, 'quiet.v1', 'Succeeded', undefined, 30_000);

    // Settle (the last status and annotation writes of the install), then nothing may change.
    await sleep(1_500);
    const recorder = recordWrites();
    const requestsBefore = proxy.requests.length;
    await sleep(2_000);
    // A write of our own, to show that the recorder sees writes at all.
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe', namespace } });
    await sleep(2_000);
    recorder.stop();
    expect(recorder.writes).toEqual([expect.stringMatching(/^ADDED \/configmaps quiet\/probe /)]);
    // Nor does it send writes that change nothing (Events and Leases aside). The provided-API
    const wasted = proxy.requests.slice(requestsBefore).filter((line) => !/\/(events|leases)(\/|\?|$)/.test(line));
    expect(wasted).toEqual([]);
  });
});

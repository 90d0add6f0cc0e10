import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, installWidgetCrd, kubeConfigOf, startTestServer } from './helpers.js';
import { kubectl, kubectlMinorVersion, runKubectl } from './kubectl-client.js';

// Re-applying an associative list (a list keyed like Service ports by port+protocol) under the same
// field manager replaces the items that manager no longer applies, as kube-apiserver does.

type Any = KubernetesObject & Record<string, any>;

const minor = kubectlMinorVersion();
if (minor === undefined) console.warn(`kubectl cases skipped: "${kubectl} version --client" failed (set KUBECTL to a kubectl binary)`);

describe('server-side apply of associative lists', () => {
  let server: ApiServer;
  let objects: KubernetesObjectApi;
  let workDir: string;

  const apply = (object: Any, manager = 'tester', force = false): Promise<Any> =>
    objects.patch(object, undefined, undefined, manager, force, PatchStrategy.ServerSideApply) as Promise<Any>;

  const managedBy = (object: Any, manager: string): any => object.metadata?.managedFields?.find((entry: any) => entry.manager === manager && entry.operation === 'Apply')?.fieldsV1;

  beforeAll(async () => {
    server = await startTestServer({ tls: true });
    const config = kubeConfigOf(server);
    objects = KubernetesObjectApi.makeApiClient(config);
    workDir = mkdtempSync(join(tmpdir(), 'olm-ssa-lists-'));
  });

  afterAll(async () => {
    await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const service = (name: string, ports: object[]): Any => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { selector: { app: name }, ports } });

  it('replaces a Service port whose port changed (ports are keyed by port and protocol, protocol defaults to TCP)', async () => {
    await apply(service('web', [{ name: 'http', port: 80, targetPort: 8080 }]));
    const reapplied = await apply(service('web', [{ name: 'http', port: 81, targetPort: 8080 }]));
    expect(reapplied['spec'].ports).toEqual([{ name: 'http', port: 81, protocol: 'TCP', targetPort: 8080 }]);
    expect(Object.keys(managedBy(reapplied, 'tester')['f:spec']['f:ports'])).toEqual(['k:{"port":81,"protocol":"TCP"}']);
  });

  it('keeps ports that differ only by protocol apart, and removes just the one no longer applied', async () => {
    await apply(service('dns', [{ name: 'dns-udp', port: 53, protocol: 'UDP', targetPort: 5353 }, { name: 'dns-tcp', port: 53, targetPort: 5353 }]));
    const both = (await objects.read(service('dns', []) as any)) as Any;
    expect(both['spec'].ports.map((port: any) => `${port.port}/${port.protocol}`)).toEqual(['53/UDP', '53/TCP']);
    const tcpOnly = await apply(service('dns', [{ name: 'dns-tcp', port: 53, targetPort: 5353 }]));
    expect(tcpOnly['spec'].ports).toEqual([{ name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 5353 }]);
  });

  it('keeps an item another manager still owns a field of, with its key fields', async () => {
    await apply(service('shared', [{ name: 'http', port: 80, targetPort: 8080 }]));
    // Another manager (an Update) renames the same item and takes `appProtocol` (two ports need names; a field set to its current value stays with its owner).
    const patched = await call(server, 'PATCH', '/api/v1/namespaces/default/services/shared?fieldManager=editor', { spec: { ports: [{ port: 80, protocol: 'TCP', name: 'web', appProtocol: 'http' }] } }, {
      'Content-Type': 'application/strategic-merge-patch+json',
    });
    expect(patched.status).toBe(200);
    const reapplied = await apply(service('shared', [{ name: 'alt', port: 81, targetPort: 8080 }]));
    // The applier's targetPort went with its ownership; Service defaulting sets it to the port again.
    expect(reapplied['spec'].ports).toEqual([
      { name: 'web', port: 80, protocol: 'TCP', appProtocol: 'http', targetPort: 80 },
      { name: 'alt', port: 81, protocol: 'TCP', targetPort: 8080 },
    ]);
  });

  it('does the same through kubectl apply --server-side', async () => {
    if (minor === undefined) return;
    const env = { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: join(workDir, 'cache'), HOME: workDir };
    const manifest = (port: number): string => `apiVersion: v1
kind: Service
metadata:
  name: kubectl-web
  namespace: default
spec:
  selector: {app: web}
  ports:
  - name: http
    port: ${port}
    targetPort: 8080
`;
    const path = join(workDir, 'service.yaml');
    writeFileSync(path, manifest(80));
    expect((await runKubectl(['apply', '--server-side', '-f', path], { env, cwd: workDir })).stdout.trim()).toBe('service/kubectl-web serverside-applied');
    writeFileSync(path, manifest(81));
    const second = await runKubectl(['apply', '--server-side', '-f', path], { env, cwd: workDir });
    expect(second.stderr).toBe('');
    const ports = await runKubectl(['get', 'service', 'kubectl-web', '-o', 'jsonpath={range .spec.ports[*]}{.name}:{.port}/{.protocol}->{.targetPort};{end}'], { env, cwd: workDir });
    expect(ports.stdout).toBe('http:81/TCP->8080;');
  });

  const deployment = (containers: object[]): Any => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'lists', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'lists' } }, template: { metadata: { labels: { app: 'lists' } }, spec: { containers } } },
  });

  it('removes containers (by name), env vars (by name) and container ports (by containerPort and protocol) no longer applied', async () => {
    await apply(
      deployment([
        { name: 'main', image: 'main:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] },
        { name: 'sidecar', image: 'sidecar:1' },
      ]),
    );
    const reapplied = await apply(deployment([{ name: 'main', image: 'main:1', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 8080 }, { containerPort: 53, protocol: 'UDP' }] }]));
    const containers = reapplied['spec'].template.spec.containers;
    expect(containers.map((container: any) => container.name)).toEqual(['main']);
    expect(containers[0].env).toEqual([{ name: 'A', value: '1' }]);
    // The protocol of a container port is part of its key (TCP when left out, as the server defaults it).
    expect(containers[0].ports).toEqual([{ containerPort: 53, protocol: 'UDP' }, { containerPort: 8080, protocol: 'TCP' }]);
    const owned = managedBy(reapplied, 'tester')['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"main"}'];
    expect(Object.keys(owned['f:ports']).sort()).toEqual(['k:{"containerPort":53,"protocol":"UDP"}', 'k:{"containerPort":8080,"protocol":"TCP"}']);
    expect(Object.keys(owned['f:env'])).toEqual(['k:{"name":"A"}']);
  });

  it('removes custom resource list items (x-kubernetes-list-type: map) no longer applied', async () => {
    await installWidgetCrd(server);
    const widget = (parts: object[]): Any => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'listed', namespace: 'default' }, spec: { size: 1, parts } });
    await apply(widget([{ name: 'a', count: 1 }, { name: 'b', count: 2 }]));
    const reapplied = await apply(widget([{ name: 'c', count: 3 }]));
    expect(reapplied['spec'].parts).toEqual([{ name: 'c', count: 3 }]);
  });

  it('fills a missing key field of a custom resource list item from its schema default', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gateways.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gateways', singular: 'gateway', kind: 'Gateway' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      listeners: {
                        type: 'array',
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['port', 'protocol'],
                        items: {
                          type: 'object',
                          required: ['port'],
                          properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, hostname: { type: 'string' } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    expect((await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const gateway = (listeners: object[]): Any => ({ apiVersion: 'example.com/v1', kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { listeners } });
    await apply(gateway([{ port: 80, hostname: 'a' }, { port: 53, protocol: 'UDP' }]));
    const reapplied = await apply(gateway([{ port: 8080, hostname: 'a' }, { port: 53, protocol: 'UDP' }]));
    expect(reapplied['spec'].listeners).toEqual([
      { port: 53, protocol: 'UDP' },
      { port: 8080, hostname: 'a', protocol: 'TCP' },
    ]);
    expect(Object.keys(managedBy(reapplied, 'tester')['f:spec']['f:listeners']).sort()).toEqual(['k:{"port":53,"protocol":"UDP"}', 'k:{"port":8080,"protocol":"TCP"}']);
  });
});

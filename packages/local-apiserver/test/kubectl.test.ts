import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { eventually, startTestServer } from './helpers.js';
import { kubectl, kubectlMinorVersion, runKubectl, type KubectlResult as Result } from './kubectl-client.js';

const minor = kubectlMinorVersion();
const available = minor !== undefined;
if (!available) console.warn(`kubectl tests skipped: "${kubectl} version --client" failed (set KUBECTL to a kubectl binary)`);

describe.skipIf(!available)(`kubectl ${available ? `1.${minor}` : '(missing)'} against the local API server`, () => {
  let server: ApiServer;
  let workDir: string;
  let env: NodeJS.ProcessEnv;

  const run = (args: string[], input?: string): Promise<Result> => runKubectl(args, { env, cwd: workDir, ...(input !== undefined ? { input } : {}) });

  const file = (name: string, content: string): string => {
    const path = join(workDir, name);
    writeFileSync(path, content);
    return path;
  };

  beforeAll(async () => {
    server = await startTestServer({ tls: true });
    workDir = mkdtempSync(join(tmpdir(), 'olm-kubectl-'));
    env = { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: join(workDir, 'cache'), HOME: workDir };
    file(
      'crd.yaml',
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd], categories: [olm]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Phase, type: string, jsonPath: .status.phase}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        description: A widget for kubectl tests.
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, description: How big the widget is.}
          status:
            type: object
            properties:
              phase: {type: string}
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
`,
    );
  });

  afterAll(async () => {
    await server?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  const widget = (name: string, size: string) => `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: ${name}}\nspec: {size: ${size}}\n`;

  it('1: reports server version v1.32', async () => {
    const result = await run(['version', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).serverVersion.gitVersion).toMatch(/^v1\.32\./);
  });

  it('2: applies a CRD and waits for it to be established', async () => {
    const applied = await run(['apply', '-f', join(workDir, 'crd.yaml')]);
    expect(applied.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created');
    const waited = await run(['wait', '--for', 'condition=established', 'crd/widgets.example.com', '--timeout=10s']);
    expect(waited.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met');
  });

  it('3: client-side apply creates, leaves unchanged, then configures', async () => {
    const path = file('w1.yaml', widget('w1', '1'));
    expect((await run(['apply', '-f', path])).stdout.trim()).toBe('widget.example.com/w1 created');
    expect((await run(['apply', '-f', path])).stdout.trim()).toBe('widget.example.com/w1 unchanged');
    file('w1.yaml', widget('w1', '2'));
    expect((await run(['apply', '-f', path])).stdout.trim()).toBe('widget.example.com/w1 configured');
    expect((await run(['get', 'wd', 'w1', '-o', 'jsonpath={.metadata.generation} {.spec.size}'])).stdout).toBe('2 2');
  });

  it('4: server-side apply creates and records the kubectl manager', async () => {
    const path = file('w2.yaml', widget('w2', '7'));
    expect((await run(['apply', '--server-side', '-f', path])).stdout.trim()).toBe('widget.example.com/w2 serverside-applied');
    const yaml = await run(['get', 'wd', 'w2', '-o', 'json', ...(minor !== undefined && minor >= 21 ? ['--show-managed-fields'] : [])]);
    const managed = JSON.parse(yaml.stdout).metadata.managedFields;
    expect(managed).toEqual([expect.objectContaining({ manager: 'kubectl', operation: 'Apply' })]);
  });

  it('4b: reports server-side apply conflicts with the client-side manager, and forces them', async () => {
    const path = file('w9.yaml', widget('w9', '1'));
    await run(['apply', '-f', path]);
    const changed = file('w9b.yaml', widget('w9', '2'));
    const conflict = await run(['apply', '--server-side', '-f', changed]);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using example.com/v1: .spec.size');
    const forced = await run(['apply', '--server-side', '--force-conflicts', '-f', changed]);
    expect(forced.stdout.trim()).toBe('widget.example.com/w9 serverside-applied');
    expect((await run(['get', 'wd', 'w9', '-o', 'jsonpath={.spec.size}'])).stdout).toBe('2');
    await run(['delete', 'wd', 'w9']);
  });

  it('5: prints printer columns for custom resources and api-resources', async () => {
    const table = await run(['get', 'widgets']);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+PHASE\s+AGE$/);
    expect(lines[1]).toMatch(/^w1\s+\d+s$/);
    const resources = await run(['api-resources', '--api-group=example.com']);
    expect(resources.stdout).toMatch(/widgets\s+wd\s+example\.com\/v1\s+true\s+Widget/);
    const byCategory = await run(['get', 'olm']);
    expect(byCategory.stdout).toMatch(/^w1\s/m);
    const wide = await run(['get', 'namespaces', '-o', 'wide']);
    expect(wide.stdout).toMatch(/^NAME\s+STATUS\s+AGE/);
    expect(wide.stdout).toMatch(/default\s+Active/);
  });

  it('6-7: patches status through the subresource and spec with a JSON patch', async () => {
    const status = await run(['patch', 'wd', 'w1', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"X"},"spec":{"size":9}}']);
    if (minor !== undefined && minor < 24) {
      // --subresource arrived in kubectl 1.24.
      expect(status.code).not.toBe(0);
    } else {
      expect(status.code).toBe(0);
      expect((await run(['get', 'wd', 'w1', '-o', 'jsonpath={.status.phase} {.spec.size} {.metadata.generation}'])).stdout).toBe('X 2 2');
    }
    const json = await run(['patch', 'wd', 'w1', '--type=json', '-p', '[{"op":"replace","path":"/spec/size","value":5}]']);
    expect(json.stdout.trim()).toBe('widget.example.com/w1 patched');
    expect((await run(['get', 'wd', 'w1', '-o', 'jsonpath={.spec.size} {.metadata.generation}'])).stdout).toBe('5 3');
  });

  it('8: refuses strategic merge patches on custom resources', async () => {
    const result = await run(['patch', 'wd', 'w1', '--type=strategic', '-p', '{"spec":{"size":1}}']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  });

  it('9-10: reports schema errors and unknown fields', async () => {
    const bad = await run(['apply', '-f', file('bad.yaml', widget('bad', '"x"'))]);
    expect(bad.code).toBe(1);
    const unknown = file('unknown.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: unk}\nspec: {size: 1, foo: 2}\n');
    const strict = await run(['apply', '-f', unknown]);
    expect(strict.code).toBe(1);
    if (minor !== undefined && minor >= 25) {
      expect(bad.stderr).toContain('The Widget "bad" is invalid: spec.size: Invalid value: "string"');
      expect(strict.stderr).toContain('strict decoding error: unknown field "spec.foo"');
    } else {
      // Old kubectl validates on the client against /openapi/v2.
      expect(bad.stderr).toContain('invalid type for com.example.v1.Widget.spec.size: got "string", expected "integer"');
      expect(strict.stderr).toContain('unknown field "foo"');
    }
    const lenient = await run(['apply', '--validate=false', '-f', unknown]);
    expect(lenient.stdout.trim()).toBe('widget.example.com/unk created');
    expect((await run(['get', 'wd', 'unk', '-o', 'jsonpath={.spec}'])).stdout).toBe('{"size":1}');
  });

  it('11-12: waits for a condition and for a JSONPath value', async () => {
    const waiting = run(['wait', '--for=condition=Ready', 'wd/w2', '--timeout=15s']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.cluster.patch(server.cluster.registry.get('example.com', 'widgets')!, 'v1', 'default', 'w2', 'merge', { status: { phase: 'Done', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
    const waited = await waiting;
    expect(waited.stdout.trim()).toBe('widget.example.com/w2 condition met');
    if (minor !== undefined && minor >= 23) {
      const jsonpath = await run(['wait', "--for=jsonpath={.status.phase}=Done", 'wd/w2', '--timeout=10s']);
      expect(jsonpath.stdout.trim()).toBe('widget.example.com/w2 condition met');
    }
  });

  it('13: holds a deletion with a finalizer and waits for the delete', async () => {
    await run(['patch', 'wd', 'w1', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);
    expect((await run(['delete', 'wd', 'w1', '--wait=false'])).stdout.trim()).toBe('widget.example.com "w1" deleted');
    expect((await run(['get', 'wd', 'w1', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).stdout).toMatch(/^\d{4}-\d\d-\d\dT/);
    const waiting = run(['wait', '--for=delete', 'wd/w1', '--timeout=15s']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await run(['patch', 'wd', 'w1', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    expect((await waiting).code).toBe(0);
    const gone = await run(['get', 'wd', 'w1']);
    expect(gone.stderr).toContain('widgets.example.com "w1" not found');
  });

  it('14: streams watch events with get -w', async () => {
    const child = spawn(kubectl, ['get', 'widgets', '-w', '--output-watch-events'], { env, cwd: workDir });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      await eventually(() => expect(output).toContain('w2'), 10_000);
      const path = file('w3.yaml', widget('w3', '1'));
      await run(['apply', '-f', path]);
      await run(['patch', 'wd', 'w3', '--type=merge', '-p', '{"spec":{"size":2}}']);
      await run(['delete', 'wd', 'w3']);
      await eventually(() => expect(output).toMatch(/DELETED\s+w3/), 10_000);
    } finally {
      child.kill();
    }
    const w3 = output.split('\n').filter((line) => /\sw3\s/.test(line)).map((line) => line.split(/\s+/)[0]);
    expect(w3).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('15: garbage-collects a dependent when its owner is deleted', async () => {
    await run(['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owner}\ndata: {a: "1"}\n');
    const uid = (await run(['get', 'cm', 'owner', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    await run(['apply', '-f', '-'], `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: child\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: ${uid}}\n`);
    expect((await run(['delete', 'cm', 'owner'])).stdout.trim()).toBe('configmap "owner" deleted');
    await eventually(async () => expect((await run(['get', 'cm', 'child'])).stderr).toContain('configmaps "child" not found'));
  });

  it('16-17: deletes a namespace with its contents; create ns sends protobuf on new kubectl', async () => {
    const created = await run(['apply', '-f', '-'], (await run(['create', 'ns', 't1', '--dry-run=client', '-o', 'yaml'])).stdout);
    expect(created.stdout.trim()).toBe('namespace/t1 created');
    await run(['-n', 't1', 'apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [example.com/hold]}\n');
    await run(['delete', 'ns', 't1', '--wait=false']);
    const refused = await run(['-n', 't1', 'apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late}\n');
    expect(refused.stderr).toContain('unable to create new content in namespace t1 because it is being terminated');
    await run(['-n', 't1', 'patch', 'cm', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await eventually(async () => expect((await run(['get', 'ns', 't1'])).stderr).toContain('namespaces "t1" not found'));

    const direct = await run(['create', 'ns', 't2']);
    expect(direct.stdout.trim()).toBe('namespace/t2 created');
  });

  it('describes an object with its events', async () => {
    await server.cluster.create(server.cluster.registry.get('', 'events')!, 'v1', 'default', {
      metadata: { name: 'w2.1' },
      involvedObject: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w2', namespace: 'default', uid: (await run(['get', 'wd', 'w2', '-o', 'jsonpath={.metadata.uid}'])).stdout },
      reason: 'Polished',
      message: 'the widget shines',
      type: 'Normal',
      count: 1,
      firstTimestamp: new Date().toISOString().slice(0, 19) + 'Z',
      lastTimestamp: new Date().toISOString().slice(0, 19) + 'Z',
      source: { component: 'tester' },
    });
    const described = await run(['describe', 'wd', 'w2']);
    expect(described.code).toBe(0);
    expect(described.stdout).toMatch(/^Name:\s+w2$/m);
    expect(described.stdout).toMatch(/Normal\s+Polished\s+.*the widget shines/);
  });

  it('explains a custom resource field', async () => {
    const result = await run(['explain', 'widgets.spec.size']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('How big the widget is.');
    expect(result.stdout).toMatch(/size\s*<integer>/);
  });

  it('prints objects as yaml, json and jsonpath', async () => {
    const yaml = await run(['get', 'ns', 'default', '-o', 'yaml']);
    expect(yaml.stdout).toMatch(/^apiVersion: v1\nkind: Namespace\n/);
    const json = JSON.parse((await run(['get', 'cm', '-o', 'json'])).stdout);
    expect(json.kind).toBe('List');
    expect((await run(['get', 'ns', '-o', 'jsonpath={.items[*].metadata.name}'])).stdout).toContain('kube-system');
  });

  it('rolls out, scales, labels and annotates a Deployment', async () => {
    const deployment = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: busybox}]}\n';
    expect((await run(['apply', '-f', '-'], deployment)).stdout.trim()).toBe('deployment.apps/web created');
    expect((await run(['apply', '-f', '-'], deployment)).stdout.trim()).toBe('deployment.apps/web unchanged');
    expect((await run(['rollout', 'status', 'deployment/web', '--timeout=15s'])).stdout).toContain('deployment "web" successfully rolled out');
    expect((await run(['scale', 'deployment', 'web', '--replicas=3'])).stdout.trim()).toBe('deployment.apps/web scaled');
    const wrongPrecondition = await run(['scale', 'deployment', 'web', '--replicas=2', '--current-replicas=1']);
    expect(wrongPrecondition.code).not.toBe(0);
    expect(wrongPrecondition.stderr).toContain('Expected replicas to be 1, was 3');
    expect((await run(['rollout', 'status', 'deployment/web', '--timeout=15s'])).code).toBe(0);
    expect((await run(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas} {.status.availableReplicas} {.metadata.generation}'])).stdout).toBe('3 3 2');
    expect((await run(['label', 'deploy', 'web', 'tier=front'])).stdout.trim()).toBe('deployment.apps/web labeled');
    expect((await run(['label', 'deploy', 'web', 'tier=back'])).stderr).toContain("'tier' already has a value (front), and --overwrite is false");
    expect((await run(['label', 'deploy', 'web', 'tier=back', '--overwrite'])).code).toBe(0);
    expect((await run(['annotate', 'deploy', 'web', 'note=hello'])).stdout.trim()).toBe('deployment.apps/web annotated');
    expect((await run(['get', 'deploy', '-l', 'tier=back', '-o', 'jsonpath={.items[*].metadata.annotations.note} {.items[*].metadata.generation}'])).stdout).toBe('hello 2');
    const all = await run(['get', 'all']);
    expect(all.stdout).toMatch(/^deployment\.apps\/web\s+3\/3\s+3\s+3\s/m);
    expect((await run(['delete', 'deploy', 'web'])).stdout.trim()).toBe('deployment.apps "web" deleted');
  });

  it('talks HTTPS with the generated CA and bearer token', async () => {
    const secure = await startTestServer({ tls: true, token: 'kubectl-token' });
    try {
      const secureEnv = { ...env, KUBECONFIG: secure.kubeconfigPath };
      const list = (args: string[]) =>
        new Promise<Result>((resolve) => {
          execFile(kubectl, args, { env: secureEnv, cwd: workDir, timeout: 20_000 }, (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }));
        });
      const served = await list(['get', 'namespaces', '-o', 'name']);
      expect(served.stdout.trim().split('\n')).toEqual(['namespace/default', 'namespace/kube-node-lease', 'namespace/kube-public', 'namespace/kube-system']);
      const refused = await list(['get', 'namespaces', '--token=wrong']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('Unauthorized');
    } finally {
      await secure.stop();
    }
  });

  it('18: stops serving a deleted CRD', async () => {
    expect((await run(['delete', 'crd', 'widgets.example.com'])).code).toBe(0);
    await eventually(async () => {
      // A fresh discovery cache, as a new shell would have.
      const result = await run(['get', 'widgets', '--cache-dir', join(workDir, `cache-${Date.now()}`)]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('the server doesn\'t have a resource type "widgets"');
    });
  });
});

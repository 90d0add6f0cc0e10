import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { startTestServer } from './helpers.js';
import { kubectl, kubectlMinorVersion, runKubectl, type KubectlResult } from './kubectl-client.js';

/** kubectl's generators (`kubectl create <kind> …`) send Kubernetes protobuf bodies; a cluster admin's first commands. */
const minor = kubectlMinorVersion();
if (minor === undefined) console.warn(`kubectl generator tests skipped: "${kubectl} version --client" failed (set KUBECTL to a kubectl binary)`);

describe.skipIf(minor === undefined)(`kubectl 1.${minor ?? '?'} create generators against the local API server`, () => {
  let server: ApiServer;
  let workDir: string;
  let env: NodeJS.ProcessEnv;

  const run = (...args: string[]): Promise<KubectlResult> => runKubectl(args, { env, cwd: workDir });
  /** Runs a command that must succeed and returns its trimmed output. */
  const ok = async (...args: string[]): Promise<string> => {
    const result = await run(...args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout.trim();
  };
  const getJson = async (...args: string[]): Promise<any> => JSON.parse(await ok('get', ...args, '-o', 'json'));

  beforeAll(async () => {
    server = await startTestServer({ tls: true });
    workDir = mkdtempSync(join(tmpdir(), 'olm-kubectl-create-'));
    env = { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: join(workDir, 'cache'), HOME: workDir };
  });

  afterAll(async () => {
    await server?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('creates a namespace, and reports an existing one as AlreadyExists', async () => {
    expect(await ok('create', 'namespace', 'operators')).toBe('namespace/operators created');
    const namespace = await getJson('namespace', 'operators');
    expect(namespace.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'operators' });
    expect(namespace.status).toEqual({ phase: 'Active' });
    const again = await run('create', 'namespace', 'operators');
    expect(again.code).not.toBe(0);
    expect(again.stderr.trim()).toBe('Error from server (AlreadyExists): namespaces "operators" already exists');
  });

  it('honours --dry-run=server without storing anything', async () => {
    expect(await ok('create', 'namespace', 'ghost', '--dry-run=server')).toBe('namespace/ghost created (server dry run)');
    expect((await run('get', 'namespace', 'ghost')).stderr).toContain('namespaces "ghost" not found');
  });

  it('creates configmaps from literals and from a binary file', async () => {
    expect(await ok('create', 'configmap', 'settings', '-n', 'operators', '--from-literal=mode=fast', '--from-literal=level=3')).toBe('configmap/settings created');
    expect((await getJson('configmap', 'settings', '-n', 'operators')).data).toEqual({ mode: 'fast', level: '3' });
    writeFileSync(join(workDir, 'blob.bin'), Buffer.from([0x00, 0x01, 0xfe, 0xff]));
    await ok('create', 'configmap', 'blob', '-n', 'operators', `--from-file=${join(workDir, 'blob.bin')}`);
    const blob = await getJson('configmap', 'blob', '-n', 'operators');
    expect(blob.binaryData).toEqual({ 'blob.bin': 'AAH+/w==' });
    expect(blob.data).toBeUndefined();
  });

  it('creates a generic secret whose data round-trips through base64', async () => {
    const password = 'p@ss w0rd:é\u00e8\n';
    expect(await ok('create', 'secret', 'generic', 'creds', '-n', 'operators', `--from-literal=password=${password}`, '--from-literal=user=admin')).toBe('secret/creds created');
    const secret = await getJson('secret', 'creds', '-n', 'operators');
    expect(secret.type).toBe('Opaque');
    expect(Buffer.from(secret.data.password, 'base64').toString('utf8')).toBe(password);
    expect(Buffer.from(secret.data.user, 'base64').toString('utf8')).toBe('admin');
    expect(await ok('get', 'secret', 'creds', '-n', 'operators', '-o', 'jsonpath={.data.user}')).toBe(Buffer.from('admin').toString('base64'));

    await ok('create', 'secret', 'docker-registry', 'pull', '-n', 'operators', '--docker-server=registry.example.com', '--docker-username=bot', '--docker-password=s3cret');
    const pull = await getJson('secret', 'pull', '-n', 'operators');
    expect(pull.type).toBe('kubernetes.io/dockerconfigjson');
    expect(JSON.parse(Buffer.from(pull.data['.dockerconfigjson'], 'base64').toString('utf8')).auths['registry.example.com']).toMatchObject({ username: 'bot', password: 's3cret' });
  });

  it('creates a service account, a role and a role binding to it', async () => {
    expect(await ok('create', 'serviceaccount', 'operator', '-n', 'operators')).toBe('serviceaccount/operator created');
    expect((await getJson('serviceaccount', 'operator', '-n', 'operators')).metadata.namespace).toBe('operators');

    expect(await ok('create', 'role', 'pod-reader', '-n', 'operators', '--verb=get,list,watch', '--resource=pods,deployments.apps', '--resource-name=web')).toBe(
      'role.rbac.authorization.k8s.io/pod-reader created',
    );
    expect((await getJson('role', 'pod-reader', '-n', 'operators')).rules).toEqual([
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
    ]);

    expect(await ok('create', 'rolebinding', 'read-pods', '-n', 'operators', '--role=pod-reader', '--serviceaccount=operators:operator', '--user=alice')).toBe(
      'rolebinding.rbac.authorization.k8s.io/read-pods created',
    );
    const binding = await getJson('rolebinding', 'read-pods', '-n', 'operators');
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' });
    expect(binding.subjects).toEqual([
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
      { kind: 'ServiceAccount', name: 'operator', namespace: 'operators' },
    ]);
  });

  it('creates cluster roles (rules and aggregation) and a cluster role binding', async () => {
    expect(await ok('create', 'clusterrole', 'health-reader', '--verb=get', '--non-resource-url=/healthz', '--non-resource-url=/readyz')).toBe(
      'clusterrole.rbac.authorization.k8s.io/health-reader created',
    );
    expect((await getJson('clusterrole', 'health-reader')).rules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz'] }]);
    await ok('create', 'clusterrole', 'aggregate', '--aggregation-rule=rbac.example.com/aggregate-to-view=true');
    expect((await getJson('clusterrole', 'aggregate')).aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-view': 'true' } }] });

    expect(await ok('create', 'clusterrolebinding', 'health', '--clusterrole=health-reader', '--group=system:authenticated')).toBe(
      'clusterrolebinding.rbac.authorization.k8s.io/health created',
    );
    const binding = await getJson('clusterrolebinding', 'health');
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'health-reader' });
    expect(binding.subjects).toEqual([{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' }]);
  });

  it('creates a deployment that rolls out in the simulation', async () => {
    expect(await ok('create', 'deployment', 'web', '-n', 'operators', '--image=nginx:1.27', '--replicas=2', '--port=80')).toBe('deployment.apps/web created');
    expect(await ok('rollout', 'status', 'deployment/web', '-n', 'operators', '--timeout=20s')).toContain('successfully rolled out');
    const deployment = await getJson('deployment', 'web', '-n', 'operators');
    expect(deployment.metadata.labels).toEqual({ app: 'web' });
    expect(deployment.spec).toMatchObject({
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: {} }] } },
    });
    expect(deployment.status).toMatchObject({ replicas: 2, updatedReplicas: 2, availableReplicas: 2, observedGeneration: 1 });
  });

  it('creates ClusterIP and ExternalName services', async () => {
    expect(await ok('create', 'service', 'clusterip', 'web', '-n', 'operators', '--tcp=8080:80', '--tcp=9090')).toBe('service/web created');
    const service = await getJson('service', 'web', '-n', 'operators');
    expect(service.spec).toMatchObject({
      type: 'ClusterIP',
      selector: { app: 'web' },
      ports: [
        { name: '8080-80', protocol: 'TCP', port: 8080, targetPort: 80 },
        { name: '9090', protocol: 'TCP', port: 9090, targetPort: 9090 },
      ],
    });
    expect(service.spec.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);

    await ok('create', 'service', 'externalname', 'upstream', '-n', 'operators', '--external-name=example.com');
    const external = await getJson('service', 'upstream', '-n', 'operators');
    expect(external.spec).toMatchObject({ type: 'ExternalName', externalName: 'example.com' });
    expect(external.spec.clusterIP).toBeUndefined();
  });
});

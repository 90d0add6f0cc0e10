import { spawnSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { GROUP, pruneResource, validateResource } from '@olm/api';
import { KubeClient } from '@olm/controller-runtime';
import type { ApiServer } from '@olm/local-apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableControllers } from '../src/controller-selection.js';
import { plugins } from '../src/plugins.js';
import { exampleCatalogDirectory } from '../src/paths.js';
import {
  deployDirectory,
  documents,
  examplesDirectory,
  kubectlBinary,
  namespacesYaml,
  plainManifestNames,
  repository,
  runOutsideAPod,
  startLocalCluster,
  type Json,
  type LocalCluster,
} from './deploy-tools.js';
import { runCliCaptured } from './run-cli.js';

const hasKubectl = spawnSync(kubectlBinary, ['version', '--client'], { encoding: 'utf8' }).status === 0;
if (!hasKubectl) console.warn(`deploy manifests: kubectl (${kubectlBinary}) not found, the --dry-run=server checks are skipped; scripts/setup.sh installs it`);

/** Not Kubernetes objects: scenario files for `olm resolve` (tested by the resolve tests). */
const scenarioFiles = new Set(['resolve-monitoring.yaml']);

async function yamlFiles(directory: string): Promise<string[]> {
  return (await readdir(directory)).filter((name) => name.endsWith('.yaml')).sort().map((name) => join(directory, name));
}

const manifestFiles = [...(await yamlFiles(deployDirectory)), ...(await yamlFiles(examplesDirectory)).filter((file) => !scenarioFiles.has(basename(file)))];

describe('deploy/ and examples/ manifests', () => {
  it('finds the manifests, and skips only scenario files', async () => {
    expect(manifestFiles.map((file) => basename(file))).toEqual(
      expect.arrayContaining(['00-namespace.yaml', '10-rbac.yaml', '20-controllers.yaml', '30-catalog.yaml', '40-packageserver.yaml', 'catalogsource.yaml', 'subscription-manual.yaml']),
    );
    for (const name of scenarioFiles) {
      const [scenario] = await documents(join(examplesDirectory, name));
      expect(scenario).not.toHaveProperty('apiVersion');
      expect(scenario).toHaveProperty('subscriptions');
    }
  });

  it.each(manifestFiles.map((file) => [file.slice(repository.length), file]))('%s: every object is well-formed, and OLM kinds match their CRD schema', async (_name, file) => {
    const objects = await documents(file);
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      expect(object.apiVersion, `${file}: apiVersion`).toEqual(expect.any(String));
      expect(object.kind, `${file}: kind`).toEqual(expect.any(String));
      expect(object.metadata?.name, `${file}: metadata.name of a ${object.kind}`).toMatch(/^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/);
      if (!String(object.apiVersion).startsWith(`${GROUP}/`)) continue;
      const where = `${file}: ${object.kind} ${object.metadata.name}`;
      expect(validateResource(object), where).toEqual([]);
      expect(pruneResource(object).unknownFields, `${where}: fields the API server would drop`).toEqual([]);
    }
  });

  it('the controller Deployments pass flags `olm run` accepts, and together run every controller', async () => {
    const deployments = (await documents(join(deployDirectory, '20-controllers.yaml'))).filter((object) => object.kind === 'Deployment');
    const selected: string[] = [];
    for (const deployment of deployments) {
      const container = deployment.spec.template.spec.containers[0];
      const args = container.args as string[];
      expect(args[0]).toBe('run');
      expect(args).toContain('--in-cluster');
      const controllers = args[args.indexOf('--controllers') + 1]!.split(',');
      selected.push(...controllers);
      // Every flag parses; the run stops only because this is not a pod.
      const run = await runOutsideAPod(args);
      expect(run.stderr).toContain('--in-cluster: this does not look like a pod');
      expect(run.code).toBe(2);
      const port = Number(args[args.indexOf('--metrics-port') + 1]);
      expect(container.ports.map((each: { containerPort: number }) => each.containerPort)).toContain(port);
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port });
    }
    expect(selected.sort()).toEqual(availableControllers(plugins).sort());
  });

  it('each operator has a metrics Service, named and labelled as upstream, that reaches its /metrics port', async () => {
    const objects = await documents(join(deployDirectory, '20-controllers.yaml'));
    const deployments = objects.filter((object) => object.kind === 'Deployment');
    // besides these, catalogd-service fronts the catalog operator's ClusterCatalog content server
    const services = objects.filter((object) => object.kind === 'Service' && object.metadata.name !== 'catalogd-service');
    expect(services.map((service) => service.metadata.name).sort()).toEqual(deployments.map((deployment) => `${deployment.metadata.name}-metrics`).sort());
    for (const deployment of deployments) {
      const service = services.find((each) => each.metadata.name === `${deployment.metadata.name}-metrics`)!;
      const container = deployment.spec.template.spec.containers[0];
      const args = container.args as string[];
      // Upstream's ServiceMonitors select the Service by the `app` of the Deployment it fronts.
      expect(service.metadata.labels?.app).toBe(deployment.spec.template.metadata.labels.app);
      expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
      const [port] = service.spec.ports;
      expect(port.name).toBe('metrics');
      const target = container.ports.find((each: { name: string }) => each.name === port.targetPort);
      expect(target.containerPort).toBe(Number(args[args.indexOf('--metrics-port') + 1]));
    }
  });

  it('the packageserver Deployment passes flags `olm packageserver` accepts; its Service, APIService and RBAC fit them', async () => {
    const objects = await documents(join(deployDirectory, '40-packageserver.yaml'));
    const find = (kind: string, name?: string) => objects.find((object) => object.kind === kind && (name === undefined || object.metadata.name === name))!;
    const deployment = find('Deployment');
    const container = deployment.spec.template.spec.containers[0];
    const args = container.args as string[];
    const flag = (name: string) => args[args.indexOf(name) + 1]!;
    expect(args.slice(0, 2)).toEqual(['packageserver', '--in-cluster']);
    // Every flag parses; the run stops only because this is not a pod.
    const run = await runOutsideAPod(args);
    expect(run.stderr).toContain('--in-cluster: this does not look like a pod');
    expect(run.code).toBe(2);
    // The operations endpoints, as `olm run`'s.
    const metricsPort = Number(flag('--metrics-port'));
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: metricsPort });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: metricsPort });
    // Service -> the container's HTTPS port; APIService -> that Service, as --service-name/--service-port say.
    const service = find('Service');
    const https = container.ports.find((port: { name: string }) => port.name === 'https');
    expect(https.containerPort).toBe(Number(flag('--port')));
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(service.spec.ports).toEqual([{ name: 'https', port: Number(flag('--service-port')), targetPort: 'https' }]);
    const apiService = find('APIService');
    expect(apiService.metadata.name).toBe('v1.packages.operators.coreos.com');
    expect(apiService.spec).toEqual({
      group: 'packages.operators.coreos.com',
      version: 'v1',
      groupPriorityMinimum: 2000,
      versionPriority: 15,
      service: { namespace: flag('--namespace'), name: flag('--service-name'), port: Number(flag('--service-port')) },
    });
    expect(service.metadata).toMatchObject({ name: flag('--service-name'), namespace: flag('--namespace') });
    // Least privilege: read-only on what it serves from, and only its own APIService to write.
    const role = find('ClusterRole', 'olm:packageserver');
    expect(find('ClusterRoleBinding').roleRef.name).toBe(role.metadata.name);
    expect(find('ClusterRoleBinding').subjects).toEqual([{ kind: 'ServiceAccount', name: deployment.spec.template.spec.serviceAccountName, namespace: deployment.metadata.namespace }]);
    for (const rule of role.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }>) {
      expect([...rule.apiGroups, ...rule.resources, ...rule.verbs]).not.toContain('*');
      if (rule.verbs.some((verb) => !['get', 'list', 'watch'].includes(verb))) expect(rule).toMatchObject({ resources: ['apiservices'], resourceNames: [apiService.metadata.name] });
    }
    // Delegated authentication and authorization, as upstream's packageserver: TokenReviews, SubjectAccessReviews, the front-proxy CA.
    const serviceAccount = [{ kind: 'ServiceAccount', name: deployment.spec.template.spec.serviceAccountName, namespace: deployment.metadata.namespace }];
    expect(find('ClusterRoleBinding', 'packageserver-service-system:auth-delegator')).toMatchObject({ roleRef: { kind: 'ClusterRole', name: 'system:auth-delegator' }, subjects: serviceAccount });
    expect(find('RoleBinding', 'packageserver-service-auth-reader')).toMatchObject({
      metadata: { namespace: 'kube-system' },
      roleRef: { kind: 'Role', name: 'extension-apiserver-authentication-reader' },
      subjects: serviceAccount,
    });
    const view = find('ClusterRole', 'olm:packagemanifests-view');
    expect(view.metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-view': 'true' });
    expect(view.rules).toEqual([{ apiGroups: ['packages.operators.coreos.com'], resources: ['packagemanifests', 'packagemanifests/icon'], verbs: ['get', 'list', 'watch'] }]);
  });

  it('the catalog Deployment runs `olm catalog serve` with flags it accepts', async () => {
    const deployment = (await documents(join(deployDirectory, '30-catalog.yaml'))).find((object) => object.kind === 'Deployment')!;
    const args = deployment.spec.template.spec.containers[0].args as string[];
    expect(args.slice(0, 3)).toEqual(['catalog', 'serve', '/catalog']);
    const local = args.map((arg) => (arg === '/catalog' ? exampleCatalogDirectory : arg === '50051' ? '0' : arg));
    const run = await runCliCaptured([...local, '--exit-after-start']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('the Dockerfile is multi-stage, runs distroless as a numeric non-root user, and starts the built CLI', async () => {
    const dockerfile = await readFile(join(deployDirectory, 'Dockerfile'), 'utf8');
    const stages = [...dockerfile.matchAll(/^FROM\s+(\S+)\s+AS\s+(\S+)/gim)].map((match) => ({ image: match[1]!, name: match[2]! }));
    expect(stages.map((stage) => stage.name)).toEqual(['build', 'runtime', 'catalog']);
    expect(stages[0]!.image).toMatch(/^node:24[-.\w]*-slim$/);
    expect(stages[1]!.image).toMatch(/^gcr\.io\/distroless\/nodejs24-debian\d+:nonroot$/);
    // Pods set runAsNonRoot: the kubelet can only check a numeric user.
    expect(dockerfile).toMatch(/^USER 65532:65532$/m);
    expect(dockerfile).toContain('--filter=@olm/olm');
    const packageJson = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; bin: Record<string, string> };
    expect(packageJson.name).toBe('@olm/olm');
    expect(dockerfile).toContain(`"/app/${packageJson.bin.olm!.replace(/^\.\//, '')}"`);
    const ignored = (await readFile(join(deployDirectory, 'Dockerfile.dockerignore'), 'utf8')).split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
    for (const copied of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm)) expect(existsSync(join(repository, copied[1]!)), copied[1]).toBe(true);
  });
});

describe.skipIf(!hasKubectl)('deploy/ and examples/ with kubectl apply --dry-run=server against the local API server', () => {
  let cluster: LocalCluster;
  let server: ApiServer;
  let client: KubeClient;

  const kubectl = (args: readonly string[], input?: string) => cluster.kubectl(args, input);

  beforeAll(async () => {
    cluster = await startLocalCluster();
    server = cluster.server;
    client = new KubeClient({ kubeconfig: server.kubeconfig });
  });
  afterAll(async () => {
    client?.close();
    await cluster?.stop();
  });

  it('installs the CRDs as deploy/README.md says: olm crds | kubectl apply --server-side -f -', async () => {
    const crds = await runCliCaptured(['crds']);
    expect(crds.code).toBe(0);
    const applied = await kubectl(['apply', '--server-side', '-f', '-'], crds.stdout);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/customresourcedefinition\.apiextensions\.k8s\.io\/subscriptions\.operators\.coreos\.com serverside-applied/);
    await expect.poll(async () => (await kubectl(['api-resources', '--api-group', GROUP, '-o', 'name'])).stdout, { timeout: 20_000 }).toContain('subscriptions.operators.coreos.com');
    // Namespaced objects need their namespace to exist, as on a real cluster (a dry run creates none).
    const created = await kubectl(['apply', '-f', '-'], namespacesYaml(['olm', 'operators', 'acme']));
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
  });

  it.each(manifestFiles.map((file) => [file.slice(repository.length), file]))('%s passes kubectl apply --dry-run=server, and nothing is stored', async (_name, file) => {
    const revision = server.revision();
    const result = await kubectl(['apply', '--dry-run=server', '-f', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength((await documents(file)).length);
    for (const line of lines) expect(line).toMatch(/ \(server dry run\)$/);
    expect(server.revision()).toBe(revision);
  });

  it('a real kubectl apply -f deploy/ then creates what the dry runs promised, and leaves out the kustomize files', async () => {
    expect(await client.find({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'olm', name: 'olm-operator' })).toBeUndefined();
    // The APIService makes the API server dial its Service's clusterIP (as kube-aggregator does):
    // a loopback one keeps that dial on this machine rather than at an allocated 10.96.x address.
    const loopbackService = 'apiVersion: v1\nkind: Service\nmetadata: {name: packageserver-service, namespace: olm}\nspec: {clusterIP: 127.0.0.1, ports: [{name: https, port: 443}]}\n';
    expect((await kubectl(['create', '--save-config', '-f', '-'], loopbackService)).code).toBe(0);
    const result = await kubectl(['apply', '-f', deployDirectory]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // deploy/Kustomization (the kustomize base) is no *.yaml file, so it is not applied as an object.
    const planned = (await Promise.all(plainManifestNames.map((name) => documents(join(deployDirectory, name))))).flat();
    expect(result.stdout.trim().split('\n')).toHaveLength(planned.length);
    expect(result.stdout).not.toMatch(/kustomiz/i);
    const names = async (apiVersion: string, kind: string, namespace: string) =>
      (await client.list<Json>({ apiVersion, kind }, { namespace })).items.map((item) => item.metadata.name).sort();
    expect(await names('apps/v1', 'Deployment', 'olm')).toEqual(['catalog-operator', 'example-catalog', 'olm-operator', 'packageserver']);
    expect(await names('v1', 'Service', 'olm')).toEqual(['catalog-operator-metrics', 'catalogd-service', 'example-catalog', 'olm-operator-metrics', 'packageserver-service']);
    expect(await names(`${GROUP}/v1alpha1`, 'CatalogSource', 'olm')).toEqual(['example-catalog']);
    expect(await client.find({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'olm:controllers' })).toBeDefined();
    // The packageserver writes the caBundle when it starts; until then the APIService has none.
    const apiService = await client.get<Json>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.packages.operators.coreos.com' });
    expect(apiService.spec.caBundle).toBeUndefined();
    expect(apiService.spec.service).toEqual({ namespace: 'olm', name: 'packageserver-service', port: 443 });
  });
});

import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  builtCrdsYaml,
  byKey,
  chartDirectory,
  componentsDirectory,
  deployDirectory,
  differingKeys,
  documents,
  findHelm,
  helmLabelKeys,
  helmTemplate,
  objectKey,
  plainManifests,
  runCommand,
  runOutsideAPod,
  withoutHelmLabels,
  withoutSymlinkNotices,
  type Json,
} from './deploy-tools.js';

const found = await findHelm();
// The chart's crds/ is a link to the build output (packages/api/dist/crds.yaml): Helm cannot load it before a build.
const unavailable = 'unavailable' in found ? found.unavailable : existsSync(builtCrdsYaml) ? undefined : `${builtCrdsYaml} is missing: run \`pnpm build\` first`;
if (unavailable !== undefined) console.warn(`deploy helm: ${unavailable}; the chart is checked without rendering`);
const helm = 'helm' in found ? found.helm : '';

const allOn = { serviceMonitor: { enabled: true }, networkPolicies: { enabled: true } };
const componentFiles = [join(componentsDirectory, 'service-monitor', 'service-monitors.yaml'), join(componentsDirectory, 'network-policies', 'network-policies.yaml')];

async function render(values: Record<string, unknown> = {}, flags: readonly string[] = []): Promise<Json[]> {
  const { objects, result } = await helmTemplate(helm, values, flags);
  if (result.code !== 0) throw new Error(`helm template failed (${result.code}): ${result.stderr}`);
  expect(withoutSymlinkNotices(result.stderr)).toBe('');
  return objects;
}

describe('the Helm chart, read as files', () => {
  it('Chart.yaml names the chart and its appVersion, the tag of the images in deploy/', async () => {
    const chart = parse(await readFile(join(chartDirectory, 'Chart.yaml'), 'utf8')) as Record<string, string>;
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'olm', type: 'application' });
    expect(chart.version).toMatch(/^\d+\.\d+\.\d+$/);
    const images = (await plainManifests()).filter((object) => object.kind === 'Deployment').map((deployment) => deployment.spec.template.spec.containers[0].image as string);
    expect(new Set(images.map((image) => image.split(':')[1]))).toEqual(new Set([chart.appVersion]));
  });

  it('reads RBAC rules through links to the plain manifests, and its CRDs through a link to the built crds.yaml', async () => {
    const links = { 'files/10-rbac.yaml': join(deployDirectory, '10-rbac.yaml'), 'files/40-packageserver.yaml': join(deployDirectory, '40-packageserver.yaml'), 'crds/crds.yaml': builtCrdsYaml };
    for (const [link, target] of Object.entries(links)) {
      const path = join(chartDirectory, link);
      expect(resolve(join(path, '..'), await readlink(path)), link).toBe(target);
    }
  });

  it('documents every value in deploy/README.md', async () => {
    const readme = await readFile(join(deployDirectory, 'README.md'), 'utf8');
    const leaves = (value: unknown, path: string): string[] =>
      value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0 && !['resources', 'labels', 'requests'].includes(path.split('.').at(-1)!)
        ? Object.entries(value).flatMap(([key, child]) => leaves(child, path === '' ? key : `${path}.${key}`))
        : [path];
    const values = parse(await readFile(join(chartDirectory, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    // Named in full, or as `*.leaf` for a setting every component has.
    const undocumented = leaves(values, '').filter((path) => !readme.includes(`\`${path}\``) && !readme.includes(`\`*.${path.split('.').at(-1)}\``));
    expect(undocumented).toEqual([]);
  });
});

describe.skipIf(unavailable !== undefined)('helm lint and helm template of deploy/helm/olm', () => {
  let defaults: Json[];
  beforeAll(async () => {
    defaults = await render();
  });

  it.each([
    ['the defaults', {}],
    ['everything on, narrowed to CIDRs', { ...allOn, networkPolicies: { enabled: true, apiServer: { cidrs: ['10.0.0.1/32'] }, metricsFrom: [{ namespaceSelector: { matchLabels: { name: 'monitoring' } } }] } }],
  ])('helm lint --strict passes with %s', async (_name, values) => {
    const directory = await mkdtemp(join(tmpdir(), 'olm-helm-lint-'));
    try {
      await writeFile(join(directory, 'values.json'), JSON.stringify(values));
      const lint = await runCommand(helm, ['lint', '--strict', chartDirectory, '--values', join(directory, 'values.json')]);
      expect(lint.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
      expect(lint.code).toBe(0);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('the defaults render the plain manifests of deploy/, each object with Helm’s labels added', async () => {
    expect(differingKeys(await plainManifests(), defaults.map(withoutHelmLabels))).toEqual([]);
    for (const object of defaults) expect(Object.keys(object.metadata.labels ?? {}), objectKey(object)).toEqual(expect.arrayContaining(helmLabelKeys));
  });

  it('serviceMonitor.enabled and networkPolicies.enabled add the kustomize components’ objects', async () => {
    const expected = [...(await plainManifests()), ...(await Promise.all(componentFiles.map(documents))).flat()];
    expect(differingKeys(expected, (await render(allOn)).map(withoutHelmLabels))).toEqual([]);
  });

  it('a rule added to deploy/10-rbac.yaml is granted by the chart too; a link that lost its ClusterRole is a clear error', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'olm-chart-'));
    try {
      const copy = join(directory, 'olm');
      await cp(chartDirectory, copy, { recursive: true, dereference: true });
      const rbac = join(copy, 'files', '10-rbac.yaml');
      const edited = parseAllDocuments(await readFile(rbac, 'utf8')).map((document) => document.toJS() as Json);
      const rule = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
      edited.find((object) => object.kind === 'ClusterRole')!.rules.push(rule);
      await writeFile(rbac, edited.map((object) => stringify(object)).join('---\n'));
      const { objects } = await helmTemplate(helm, {}, [], copy);
      expect(objects.find((object) => object.kind === 'ClusterRole' && object.metadata.name === 'olm:controllers')!.rules.at(-1)).toEqual(rule);

      await writeFile(rbac, stringify(edited.find((object) => object.kind === 'ServiceAccount')));
      const { result } = await helmTemplate(helm, {}, [], copy);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('files/10-rbac.yaml of the chart has no ClusterRole olm:controllers with rules');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('namespaces, image, log level, watched namespaces and scheduling land everywhere they are named, with flags olm accepts', async () => {
    const scheduling = { nodeSelector: { 'kubernetes.io/os': 'linux' }, tolerations: [{ key: 'dedicated', operator: 'Exists' }] };
    const objects = await render({
      namespace: 'team-olm',
      operatorNamespace: 'team-operators',
      image: { repository: 'registry.example.com/olm', tag: '9.9.9', pullPolicy: 'Always' },
      imagePullSecrets: [{ name: 'pull' }],
      logLevel: 'debug',
      watchNamespaces: ['team-a', 'team-b'],
      olmOperator: { enabled: true, replicas: 2, resources: { requests: { cpu: '50m' }, limits: { memory: '1Gi' } }, ...scheduling },
      metrics: { port: 9090 },
    });
    const objectsByKey = byKey(objects);
    expect(objects.filter((object) => object.kind === 'Namespace').map((object) => object.metadata.name)).toEqual(['team-olm', 'team-operators']);
    for (const object of objects) {
      if (object.metadata.namespace === undefined) continue;
      // The packageserver's reader binding belongs where the Role it binds is, as kube's extension API servers' do.
      const expected = object.kind === 'OperatorGroup' ? 'team-operators' : objectKey(object) === 'RoleBinding/kube-system/packageserver-service-auth-reader' ? 'kube-system' : 'team-olm';
      expect(object.metadata.namespace, objectKey(object)).toBe(expected);
    }
    for (const binding of objects.filter((object) => object.kind === 'ClusterRoleBinding' || object.kind === 'RoleBinding')) expect(binding.subjects[0].namespace, objectKey(binding)).toBe('team-olm');
    expect(objectsByKey.get('APIService//v1.packages.operators.coreos.com')!.spec.service.namespace).toBe('team-olm');
    expect(objectsByKey.get('CatalogSource/team-olm/example-catalog')!.spec.address).toBe('example-catalog.team-olm.svc:50051');

    const deployment = (name: string) => objectsByKey.get(`Deployment/team-olm/${name}`)!;
    const olmOperator = deployment('olm-operator');
    expect(olmOperator.spec.replicas).toBe(2);
    expect(olmOperator.spec.template.spec).toMatchObject({ ...scheduling, imagePullSecrets: [{ name: 'pull' }] });
    // Helm merges maps of values: the default memory request stays (null removes a default).
    expect(olmOperator.spec.template.spec.containers[0].resources).toEqual({ requests: { cpu: '50m', memory: '160Mi' }, limits: { memory: '1Gi' } });
    expect(deployment('catalog-operator').spec.template.spec.nodeSelector).toBeUndefined();
    for (const name of ['olm-operator', 'catalog-operator', 'packageserver']) {
      const container = deployment(name).spec.template.spec.containers[0];
      expect(container).toMatchObject({ image: 'registry.example.com/olm:9.9.9', imagePullPolicy: 'Always' });
      expect(container.ports).toContainEqual({ name: 'metrics', containerPort: 9090 });
      expect(container.readinessProbe.httpGet.port).toBe(9090);
      const args = container.args as string[];
      expect(args.slice(args.indexOf('--namespace'), args.indexOf('--namespace') + 2)).toEqual(['--namespace', 'team-olm']);
      expect(args.slice(-2)).toEqual(['--log-level', 'debug']);
      if (name !== 'packageserver') expect(args.slice(args.indexOf('--watch-namespaces'), args.indexOf('--watch-namespaces') + 2)).toEqual(['--watch-namespaces', 'team-a,team-b']);
      const run = await runOutsideAPod(args);
      expect(run.stderr, `${name}: ${args.join(' ')}`).toContain('--in-cluster: this does not look like a pod');
      expect(run.code).toBe(2);
    }
    expect(deployment('example-catalog').spec.template.spec.containers[0].image).toBe('ghcr.io/olm-ts/example-catalog:0.1.0');
    expect(objectsByKey.get('Service/team-olm/olm-operator-metrics')!.spec.ports).toEqual([{ name: 'metrics', port: 9090, targetPort: 'metrics' }]);
  });

  it.each([
    ['catalogOperator.enabled=false', { catalogOperator: { enabled: false, replicas: 1 } }, ['Deployment/olm/catalog-operator', 'Service/olm/catalogd-service', 'Service/olm/catalog-operator-metrics', 'ServiceMonitor/olm/catalog-operator', 'NetworkPolicy/olm/catalog-operator']],
    [
      'both operators off',
      { olmOperator: { enabled: false, replicas: 1 }, catalogOperator: { enabled: false, replicas: 1 } },
      ['Deployment/olm/catalog-operator', 'Service/olm/catalogd-service', 'Service/olm/catalog-operator-metrics', 'ServiceMonitor/olm/catalog-operator', 'NetworkPolicy/olm/catalog-operator', 'Deployment/olm/olm-operator', 'Service/olm/olm-operator-metrics', 'ServiceMonitor/olm/olm-operator', 'NetworkPolicy/olm/olm-operator', 'ServiceAccount/olm/olm-operator', 'ClusterRole//olm:controllers', 'ClusterRoleBinding//olm:controllers'],
    ],
    [
      'packageserver.enabled=false',
      { packageserver: { enabled: false } },
      ['Deployment/olm/packageserver', 'Service/olm/packageserver-service', 'APIService//v1.packages.operators.coreos.com', 'ServiceAccount/olm/packageserver', 'ClusterRole//olm:packageserver', 'ClusterRoleBinding//olm:packageserver', 'ClusterRoleBinding//packageserver-service-system:auth-delegator', 'RoleBinding/kube-system/packageserver-service-auth-reader', 'ClusterRole//olm:packagemanifests-view', 'NetworkPolicy/olm/packageserver'],
    ],
    ['exampleCatalog.enabled=false', { exampleCatalog: { enabled: false } }, ['Deployment/olm/example-catalog', 'Service/olm/example-catalog', 'CatalogSource/olm/example-catalog', 'NetworkPolicy/olm/example-catalog']],
    ['globalOperatorGroup.enabled=false', { globalOperatorGroup: { enabled: false } }, ['OperatorGroup/operators/global-operators']],
    ['createNamespaces=false', { createNamespaces: false }, ['Namespace//olm', 'Namespace//operators']],
    ['metrics.service.enabled=false', { metrics: { port: 8080, service: { enabled: false } } }, ['Service/olm/olm-operator-metrics', 'Service/olm/catalog-operator-metrics', 'ServiceMonitor/olm/olm-operator', 'ServiceMonitor/olm/catalog-operator']],
  ])('%s leaves out exactly its objects', async (_name, values, absent) => {
    const full = byKey(await render(allOn));
    const rendered = await render({ ...allOn, ...values });
    expect(rendered.map(objectKey).sort()).toEqual([...full.keys()].filter((key) => !absent.includes(key)).sort());
    expect(differingKeys(rendered, rendered.map((object) => full.get(objectKey(object))!))).toEqual([]);
  });

  it('networkPolicies narrow the API server to its CIDRs and /metrics to the given peers; serviceMonitor takes labels and an interval', async () => {
    const monitoring = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }];
    const objects = byKey(
      await render({
        serviceMonitor: { enabled: true, interval: '1m', labels: { release: 'kube-prometheus-stack' } },
        networkPolicies: { enabled: true, apiServer: { ports: [8443], cidrs: ['192.0.2.10/32'] }, metricsFrom: monitoring, registryPorts: [50051, 50052], imageRegistryPorts: [443, 5000] },
      }),
    );
    const apiServer = { ports: [{ protocol: 'TCP', port: 8443 }], to: [{ ipBlock: { cidr: '192.0.2.10/32' } }] };
    const metrics = { ports: [{ protocol: 'TCP', port: 8080 }], from: monitoring };
    const registries = { ports: [{ protocol: 'TCP', port: 50051 }, { protocol: 'TCP', port: 50052 }] };
    const dns = { ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] };
    const catalogOperator = objects.get('NetworkPolicy/olm/catalog-operator')!.spec;
    // /metrics narrowed; catalogd's HTTPS API open to the cluster's clients
    expect(catalogOperator.ingress).toEqual([metrics, { ports: [{ protocol: 'TCP', port: 8443 }] }]);
    expect(catalogOperator.egress).toEqual([apiServer, dns, registries, { ports: [{ protocol: 'TCP', port: 443 }, { protocol: 'TCP', port: 5000 }] }]);
    expect(objects.get('NetworkPolicy/olm/packageserver')!.spec.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 5443 }], from: apiServer.to }, metrics]);
    expect(objects.get('NetworkPolicy/olm/catalog-registries')!.spec.ingress[0].ports).toEqual(registries.ports);
    const monitor = objects.get('ServiceMonitor/olm/olm-operator')!;
    expect(monitor.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack', 'app.kubernetes.io/part-of': 'olm' });
    expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '1m' }]);
  });

  it.each([
    ['a misspelt key', { image: { repository: 'x', tga: '1' } }, 'image: Additional property tga is not allowed'],
    ['a count as text', { olmOperator: { enabled: true, replicas: 'two' } }, 'olmOperator.replicas: Invalid type. Expected: integer, given: string'],
    ['a log level olm does not know', { logLevel: 'trace' }, 'logLevel: logLevel must be one of the following'],
    ['a namespace Kubernetes refuses', { namespace: 'Team_OLM' }, 'namespace: Does not match pattern'],
    ['a port out of range', { metrics: { port: 70000 } }, 'metrics.port: Must be less than or equal to 65535'],
    ['an address without its prefix length', { networkPolicies: { apiServer: { cidrs: ['10.0.0.1'] } } }, 'networkPolicies.apiServer.cidrs.0: Does not match pattern'],
  ])('values.schema.json refuses %s, naming the value', async (_name, values, message) => {
    const { result } = await helmTemplate(helm, values);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("values don't meet the specifications of the schema(s)");
    expect(result.stderr).toContain(message);
  });

  it('--include-crds renders the CRDs of the built crds.yaml first', async () => {
    const objects = await render({}, ['--include-crds']);
    const crds = await documents(builtCrdsYaml);
    expect(objects.slice(0, crds.length)).toEqual(crds);
    expect(objects.slice(crds.length)).toEqual(defaults);
  });
});

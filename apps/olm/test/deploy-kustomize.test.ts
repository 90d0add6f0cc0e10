import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  builtCrdsYaml,
  componentsDirectory,
  deployDirectory,
  differingKeys,
  documents,
  examplesDirectory,
  kustomizeUnavailable,
  namespacesYaml,
  parseDocuments,
  plainManifests,
  serviceMonitorCrd,
  startLocalCluster,
  type Json,
  type LocalCluster,
} from './deploy-tools.js';

const overlayDirectory = join(examplesDirectory, 'kustomize');
const components = ['service-monitor', 'network-policies'];

/** The objects a component adds: the files its kustomization lists. */
async function componentObjects(name: string): Promise<Json[]> {
  const directory = join(componentsDirectory, name);
  const [kustomization] = await documents(join(directory, 'kustomization.yaml'));
  return (await Promise.all((kustomization!.resources as string[]).map((file) => documents(join(directory, file))))).flat();
}

type Rule = { ports?: Array<{ protocol: string; port: number }>; from?: Json[] };

describe('the kustomize components, read as files', () => {
  it('are Components listing their own files, and nothing else is in their folders', async () => {
    expect((await readdir(componentsDirectory)).sort()).toEqual([...components].sort());
    for (const name of components) {
      const directory = join(componentsDirectory, name);
      const [kustomization] = await documents(join(directory, 'kustomization.yaml'));
      expect(kustomization).toMatchObject({ apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component' });
      expect(['kustomization.yaml', ...(kustomization!.resources as string[])].sort()).toEqual((await readdir(directory)).sort());
    }
    const kinds = { 'service-monitor': 'monitoring.coreos.com/v1 ServiceMonitor', 'network-policies': 'networking.k8s.io/v1 NetworkPolicy' };
    for (const [name, kind] of Object.entries(kinds)) {
      for (const object of await componentObjects(name)) {
        expect(`${object.apiVersion} ${object.kind}`).toBe(kind);
        expect(object.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
        expect(object.metadata.namespace).toBe('olm');
      }
    }
  });

  it('the ServiceMonitors select exactly the two metrics Services, by a port those Services name', async () => {
    const services = (await plainManifests()).filter((object) => object.kind === 'Service');
    const monitors = await componentObjects('service-monitor');
    expect(monitors.map((monitor) => `${monitor.apiVersion} ${monitor.kind} ${monitor.metadata.namespace}/${monitor.metadata.name}`)).toEqual([
      'monitoring.coreos.com/v1 ServiceMonitor olm/olm-operator',
      'monitoring.coreos.com/v1 ServiceMonitor olm/catalog-operator',
    ]);
    for (const monitor of monitors) {
      const selected = services.filter(
        (service) => service.metadata.namespace === monitor.metadata.namespace && Object.entries(monitor.spec.selector.matchLabels).every(([key, value]) => service.metadata.labels?.[key] === value),
      );
      expect(selected.map((service) => service.metadata.name)).toEqual([`${monitor.metadata.name}-metrics`]);
      for (const endpoint of monitor.spec.endpoints) {
        expect(endpoint.path).toBe('/metrics');
        expect(selected[0]!.spec.ports.map((port: { name: string }) => port.name)).toContain(endpoint.port);
      }
    }
  });

  it('the NetworkPolicies deny by default, and let in what every container serves and the registries what the readers dial', async () => {
    const policies = await componentObjects('network-policies');
    const deployments = (await plainManifests()).filter((object) => object.kind === 'Deployment');
    expect(policies.find((policy) => policy.metadata.name === 'default-deny-all-traffic')!.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const selects = (podSelector: Json['spec']['podSelector'], labels: Record<string, string>) => {
      const { matchLabels = {}, matchExpressions = [] } = podSelector as { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
      return (
        Object.entries(matchLabels).every(([key, value]) => labels[key] === value) &&
        matchExpressions.every((expression) => (expression.operator === 'Exists' ? expression.key in labels : expression.values!.includes(labels[expression.key]!)))
      );
    };
    for (const deployment of deployments) {
      const labels = deployment.spec.template.metadata.labels as Record<string, string>;
      const own = policies.filter((policy) => policy.metadata.name !== 'default-deny-all-traffic' && selects(policy.spec.podSelector, labels));
      expect(own.map((policy) => policy.metadata.name), deployment.metadata.name).toEqual([deployment.metadata.name]);
      const [policy] = own;
      const ingressPorts = (policy!.spec.ingress as Rule[]).flatMap((rule) => (rule.ports ?? []).map((port) => port.port));
      const containerPorts = deployment.spec.template.spec.containers.flatMap((container: Json) => container.ports.map((port: { containerPort: number }) => port.containerPort));
      expect(ingressPorts.sort(), deployment.metadata.name).toEqual(containerPorts.sort());
      // A process that reads from the API server may reach it and resolve names; a registry may not dial out.
      const egress = (policy!.spec.egress ?? []) as Rule[];
      if (deployment.metadata.name === 'example-catalog') expect(policy!.spec.policyTypes).toEqual(['Ingress']);
      else expect(egress.flatMap((rule) => (rule.ports ?? []).map((port) => `${port.protocol}/${port.port}`))).toEqual(expect.arrayContaining(['TCP/443', 'TCP/6443', 'UDP/53', 'TCP/53']));
    }
    // The catalog registry port is open from the Catalog Operator and the packageserver, which may dial it.
    const registryPort = deployments.find((deployment) => deployment.metadata.name === 'example-catalog')!.spec.template.spec.containers[0].ports[0].containerPort;
    for (const reader of ['catalog-operator', 'packageserver']) {
      const policy = policies.find((each) => each.metadata.name === reader)!;
      expect((policy.spec.egress as Rule[]).some((rule) => rule.ports?.some((port) => port.port === registryPort))).toBe(true);
      for (const registry of policies.filter((each) => ['example-catalog', 'catalog-registries'].includes(String(each.metadata.name)))) {
        const rule = (registry.spec.ingress as Rule[])[0]!;
        expect(rule.ports).toEqual([{ protocol: 'TCP', port: registryPort }]);
        expect(rule.from!.some((peer) => selects(peer.podSelector, { app: reader }))).toBe(true);
      }
    }
  });
});

const unavailable = kustomizeUnavailable();
if (unavailable !== undefined) console.warn(`deploy kustomize: ${unavailable}; the kustomize checks are skipped`);

describe.skipIf(unavailable !== undefined)('kubectl kustomize and kubectl apply -k', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const build = async (directory: string) => parseDocuments(await cluster.kubectlOk(['kustomize', directory]), `kubectl kustomize ${directory}`);

  it('deploy/ (the base, deploy/Kustomization) renders the plain manifests unchanged', async () => {
    expect(differingKeys(await plainManifests(), await build(deployDirectory))).toEqual([]);
  });

  it('examples/kustomize renders the base plus both components, and nothing else', async () => {
    const expected = [...(await plainManifests()), ...(await componentObjects('service-monitor')), ...(await componentObjects('network-policies'))];
    const rendered = await build(overlayDirectory);
    expect(rendered).toHaveLength(expected.length);
    expect(differingKeys(expected, rendered)).toEqual([]);
  });

  it.skipIf(!existsSync(builtCrdsYaml))('both pass kubectl apply -k --dry-run=server, after the CRDs (the ServiceMonitor one included), and store nothing', async () => {
    await cluster.kubectlOk(['apply', '--server-side', '-f', builtCrdsYaml]);
    await cluster.kubectlOk(['apply', '-f', '-'], serviceMonitorCrd);
    await cluster.kubectlOk(['wait', '--for=condition=Established', '--timeout=20s', 'customresourcedefinitions', '--all']);
    await cluster.kubectlOk(['apply', '-f', '-'], namespacesYaml(['olm', 'operators']));
    for (const directory of [deployDirectory, overlayDirectory]) {
      const result = await cluster.kubectl(['apply', '-k', directory, '--dry-run=server']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength((await build(directory)).length);
      for (const line of lines) expect(line).toMatch(/ \(server dry run\)$/);
    }
    expect(await cluster.kubectlOk(['get', 'deployments,networkpolicies,servicemonitors', '-A', '-o', 'name'])).toBe('');
  });

  it.skipIf(!existsSync(builtCrdsYaml))('a real kubectl apply -k examples/kustomize creates the ServiceMonitors and NetworkPolicies too', async () => {
    // A loopback clusterIP keeps the aggregator's dial for the APIService on this machine.
    await cluster.kubectlOk(['create', '--save-config', '-f', '-'], 'apiVersion: v1\nkind: Service\nmetadata: {name: packageserver-service, namespace: olm}\nspec: {clusterIP: 127.0.0.1, ports: [{name: https, port: 443}]}\n');
    const result = await cluster.kubectl(['apply', '-k', overlayDirectory]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const names = async (resource: string) => (await cluster.kubectlOk(['get', resource, '-n', 'olm', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').sort();
    expect(await names('servicemonitors')).toEqual(['catalog-operator', 'olm-operator']);
    expect(await names('networkpolicies')).toEqual((await componentObjects('network-policies')).map((policy) => policy.metadata.name).sort());
    expect(await names('deployments')).toEqual(['catalog-operator', 'example-catalog', 'olm-operator', 'packageserver']);
  });
});

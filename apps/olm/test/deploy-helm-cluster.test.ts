import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GROUP } from '@olm/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  builtCrdsYaml,
  chartDirectory,
  documents,
  findHelm,
  helmTemplate,
  kubectlMinorVersion,
  namespacesYaml,
  runCommand,
  serviceMonitorCrd,
  startLocalCluster,
  withoutSymlinkNotices,
  type LocalCluster,
} from './deploy-tools.js';

const found = await findHelm();
const unavailable =
  'unavailable' in found
    ? found.unavailable
    : !existsSync(builtCrdsYaml)
      ? `${builtCrdsYaml} is missing: run \`pnpm build\` first`
      : kubectlMinorVersion() === undefined
        ? 'kubectl not found; scripts/setup.sh installs it'
        : undefined;
if (unavailable !== undefined) console.warn(`deploy helm against the local API server: ${unavailable}; skipped`);
const helmBinary = 'helm' in found ? found.helm : '';

/**
 * The real install leaves the packageserver out: its APIService would make the API server dial the
 * allocated clusterIP of packageserver-service (off this machine), and Helm's discovery would fail
 * on the unavailable API. The dry runs cover the packageserver's objects.
 */
const installed = { serviceMonitor: { enabled: true }, networkPolicies: { enabled: true }, packageserver: { enabled: false } };

describe.skipIf(unavailable !== undefined)('the Helm chart against the local API server', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    // With ReplicaSets and Pods, as `helm --wait` follows a rollout through them.
    cluster = await startLocalCluster({ simulateWorkloadPods: true });
    // Helm installs the operators.coreos.com CRDs itself (crds/); the ServiceMonitor CRD is the Prometheus Operator's.
    await cluster.kubectlOk(['apply', '-f', '-'], serviceMonitorCrd);
    await cluster.kubectlOk(['wait', '--for=condition=Established', '--timeout=20s', 'customresourcedefinitions/servicemonitors.monitoring.coreos.com']);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const helm = async (args: readonly string[], values: Record<string, unknown>) => {
    const valuesFile = join(cluster.environment.HELM_DATA_HOME!, `values-${args[0]}.json`);
    await mkdir(cluster.environment.HELM_DATA_HOME!, { recursive: true });
    await writeFile(valuesFile, JSON.stringify(values));
    const result = await runCommand(helmBinary, [...args, '--values', valuesFile], { env: cluster.environment });
    return { ...result, stderr: withoutSymlinkNotices(result.stderr) };
  };
  const names = async (resource: string, namespace = 'olm') => (await cluster.kubectlOk(['get', resource, '-n', namespace, '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter(Boolean).sort();

  it('helm install creates the CRDs from crds/ first, then every object, all ready to use', async () => {
    const install = await helm(['install', 'olm', chartDirectory, '--wait', '--timeout', '60s'], installed);
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
    expect(install.stdout).toContain('STATUS: deployed');
    expect(install.stdout).toContain('kubectl get packagemanifests -n operators');
    const crds = (await documents(builtCrdsYaml)).map((crd) => crd.metadata.name).sort();
    expect((await cluster.kubectlOk(['get', 'crd', '-o', 'name'])).trim().split('\n').map((name) => name.replace('customresourcedefinition.apiextensions.k8s.io/', '')).filter((name) => name.endsWith(GROUP) || name.endsWith('.olm.operatorframework.io')).sort()).toEqual(crds);
    expect(await names('deployments')).toEqual(['catalog-operator', 'example-catalog', 'olm-operator']);
    expect(await names('services')).toEqual(['catalog-operator-metrics', 'catalogd-service', 'example-catalog', 'olm-operator-metrics']);
    expect(await names('servicemonitors')).toEqual(['catalog-operator', 'olm-operator']);
    expect(await names('networkpolicies')).toEqual(['catalog-operator', 'catalog-registries', 'default-deny-all-traffic', 'example-catalog', 'olm-operator']);
    expect(await names('catalogsources')).toEqual(['example-catalog']);
    expect(await names('operatorgroups', 'operators')).toEqual(['global-operators']);
    expect(await cluster.kubectlOk(['get', 'clusterrole', 'olm:controllers', '-o', 'name'])).toBe('clusterrole.rbac.authorization.k8s.io/olm:controllers\n');
  });

  it('helm upgrade applies changed values: a removed Deployment goes, changed arguments roll out', async () => {
    const upgrade = await helm(['upgrade', 'olm', chartDirectory, '--wait', '--timeout', '60s'], { ...installed, catalogOperator: { enabled: false, replicas: 1 }, logLevel: 'debug' });
    expect(upgrade.stderr).toBe('');
    expect(upgrade.code).toBe(0);
    expect(await names('deployments')).toEqual(['example-catalog', 'olm-operator']);
    expect(await names('servicemonitors')).toEqual(['olm-operator']);
    const args = JSON.parse(await cluster.kubectlOk(['get', 'deployment', 'olm-operator', '-n', 'olm', '-o', 'jsonpath={.spec.template.spec.containers[0].args}'])) as string[];
    expect(args.slice(-2)).toEqual(['--log-level', 'debug']);
  });

  it('helm uninstall removes every object of the release and keeps the CRDs (and so the users’ objects), as Helm does', async () => {
    const uninstall = await runCommand(helmBinary, ['uninstall', 'olm', '--wait', '--timeout', '60s'], { env: cluster.environment });
    expect(withoutSymlinkNotices(uninstall.stderr)).toBe('');
    expect(uninstall.code).toBe(0);
    expect(await names('deployments')).toEqual([]);
    expect(await names('networkpolicies')).toEqual([]);
    expect(await cluster.kubectlOk(['get', 'clusterrole', 'olm:controllers', '--ignore-not-found', '-o', 'name'])).toBe('');
    expect(await cluster.kubectlOk(['get', 'crd', `subscriptions.${GROUP}`, '-o', 'name'])).not.toBe('');
  });

  it.each([
    ['the defaults', {}],
    ['everything on, in other namespaces', { namespace: 'team-olm', operatorNamespace: 'team-operators', serviceMonitor: { enabled: true }, networkPolicies: { enabled: true, apiServer: { cidrs: ['10.0.0.1/32'] } } }],
  ])('helm template with %s passes kubectl apply --dry-run=server and stores nothing', async (_name, values) => {
    await cluster.kubectlOk(['apply', '-f', '-'], namespacesYaml(['olm', 'operators', 'team-olm', 'team-operators']));
    const { objects, result: rendered } = await helmTemplate(helmBinary, values);
    expect(rendered.code).toBe(0);
    const applied = await cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], rendered.stdout);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const lines = applied.stdout.trim().split('\n');
    expect(lines).toHaveLength(objects.length);
    for (const line of lines) expect(line).toMatch(/ \(server dry run\)$/);
    expect(await cluster.kubectlOk(['get', 'deployments,apiservices.apiregistration.k8s.io', '-A', '-o', 'name', '-l', 'app.kubernetes.io/managed-by=Helm'])).toBe('');
  });
});

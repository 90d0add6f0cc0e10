import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import { csv, eventually, historyUntil, namespaceWithGroup, useController, waitForPhase, type CsvObject } from './helpers.js';

const harness = useController();

type Json = Record<string, any>;
type Deployment = CsvObject & { spec: Json };

const config = (logLevel: string) => ({
  env: [{ name: 'LOG_LEVEL', value: logLevel }, { name: 'HTTP_PROXY', value: 'http://proxy:3128' }],
  envFrom: [{ configMapRef: { name: 'operator-settings' } }],
  volumes: [{ name: 'certs', secret: { secretName: 'operator-certs' } }],
  volumeMounts: [{ name: 'certs', mountPath: '/etc/certs' }],
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'operators', effect: 'NoSchedule' }],
  resources: { limits: { memory: '256Mi' }, requests: { cpu: '100m' } },
  nodeSelector: { 'node-role.kubernetes.io/infra': '' },
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } },
  annotations: { 'example.com/team': 'platform' },
});

describe('Subscription config', () => {
  it('applies the installing Subscription’s config to the deployment, and reinstalls when it changes', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(client, 'sub-config');
    const subscription = await client.create({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { namespace: 'sub-config', name: 'configured' },
      spec: { name: 'configured', source: 'catalog', sourceNamespace: 'olm', channel: 'stable', config: config('info') },
    });
    await client.replaceStatus({ ...subscription, status: { installedCSV: 'configured.v1', currentCSV: 'configured.v1', lastUpdated: '2026-01-01T00:00:00Z' } });
    await client.create(csv({ namespace: 'sub-config', name: 'configured.v1', annotations: { 'example.com/from-csv': 'yes' } }));
    await waitForPhase(client, 'sub-config', 'configured.v1', 'Succeeded');

    const deployment = await client.get<Deployment>({ ...Kinds.deployment, namespace: 'sub-config', name: 'configured.v1-operator' });
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(container.env).toEqual([
      { name: 'OPERATOR_CONDITION_NAME', value: 'configured.v1' },
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'HTTP_PROXY', value: 'http://proxy:3128' },
    ]);
    expect(container.envFrom).toEqual([{ configMapRef: { name: 'operator-settings' } }]);
    expect(container.volumeMounts).toEqual([{ name: 'certs', mountPath: '/etc/certs' }]);
    expect(container.resources).toEqual({ limits: { memory: '256Mi' }, requests: { cpu: '100m' } });
    // defaultMode is the server's default (0644).
    expect(pod.volumes).toEqual([{ name: 'certs', secret: { secretName: 'operator-certs', defaultMode: 420 } }]);
    expect(pod.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'operators', effect: 'NoSchedule' }]);
    expect(pod.nodeSelector).toEqual({ 'node-role.kubernetes.io/infra': '' });
    expect(pod.affinity).toEqual(config('info').affinity);
    // The CSV's annotations (with the group's) and the Subscription's on the pod template; the Subscription's on the Deployment.
    expect(deployment.spec.template.metadata.annotations).toMatchObject({
      'example.com/from-csv': 'yes',
      'example.com/team': 'platform',
      'olm.operatorGroup': 'og',
      'olm.targetNamespaces': 'sub-config',
    });
    expect(deployment.metadata?.annotations).toMatchObject({ 'example.com/team': 'platform' });
    expect(deployment.metadata?.labels).toMatchObject({
      'olm.managed': 'true',
      'olm.owner': 'configured.v1',
      'olm.owner.namespace': 'sub-config',
      'olm.owner.kind': 'ClusterServiceVersion',
      'olm.deployment-spec-hash': expect.stringMatching(/^[0-9a-zA-Z]+$/),
    });
    const firstHash = deployment.metadata?.labels?.['olm.deployment-spec-hash'];

    // The admin changes the config: the spec hash no longer matches, the CSV reinstalls (through InstallReady).
    await client.patch({ ...Kinds.subscription, namespace: 'sub-config', name: 'configured' }, { spec: { config: config('debug') } });
    const history = await historyUntil(client, 'sub-config', 'configured.v1', (current) =>
      current.status?.phase === 'Succeeded' && (current.status.conditions ?? []).some((condition) => condition.reason === 'ComponentUnhealthy'),
    );
    expect(history.some((entry) => entry.startsWith(`InstallReady/ComponentUnhealthy/installing: deployment changed old hash=${firstHash}, new hash=`)), history.join('\n')).toBe(true);
    const updated = await eventually(async () => {
      const current = await client.get<Deployment>({ ...Kinds.deployment, namespace: 'sub-config', name: 'configured.v1-operator' });
      return current.spec.template.spec.containers[0].env.some((env: Json) => env.name === 'LOG_LEVEL' && env.value === 'debug') ? current : undefined;
    }, { message: 'new config applied' });
    expect(updated.metadata?.labels?.['olm.deployment-spec-hash']).not.toBe(firstHash);
  });
});

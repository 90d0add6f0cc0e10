import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import {
  csv,
  deploymentSpec,
  eventually,
  getCsv,
  historyUntil,
  namespaceWithGroup,
  useController,
  waitForPhase,
  type CsvObject,
} from './helpers.js';

const harness = useController();

/** Succeeded, after having left Succeeded at least once. */
const leftAndCameBack = (current: CsvObject) => {
  const conditions = current.status?.conditions ?? [];
  const firstSucceeded = conditions.findIndex((condition) => condition.phase === 'Succeeded');
  return current.status?.phase === 'Succeeded' && firstSucceeded >= 0 && conditions.slice(firstSucceeded).some((condition) => condition.phase !== 'Succeeded');
};

const seenAfter = (marker: string) => (current: CsvObject) => {
  const conditions = current.status?.conditions ?? [];
  const index = conditions.findIndex((condition) => condition.message.includes(marker));
  return current.status?.phase === 'Succeeded' && index >= 0 && index < conditions.length - 1;
};

describe('drift of a Succeeded CSV', () => {
  it('reinstalls when the CSV annotations are removed from the pod template', async () => {
    await namespaceWithGroup(harness.env.client, 'drift-annotations');
    await harness.env.client.create(csv({ namespace: 'drift-annotations', name: 'drift.v1' }));
    await waitForPhase(harness.env.client, 'drift-annotations', 'drift.v1', 'Succeeded', undefined, 20_000);
    await harness.env.client.patch(
      { ...Kinds.deployment, namespace: 'drift-annotations', name: 'drift.v1-operator' },
      { spec: { template: { metadata: { annotations: { 'olm.targetNamespaces': null } } } } },
    );
    // As upstream, the rollout the patch starts is checked first (Waiting); once rolled out, the missing
    // annotation is seen (AnnotationsMissing → InstallReady). Under load the CSV may instead go
    // Failed/ComponentUnhealthy → Pending/NeedsReinstall and reinstall before the annotation check runs.
    const history = await historyUntil(harness.env.client, 'drift-annotations', 'drift.v1', leftAndCameBack, 20_000);
    expect(
      history.some((entry) => /installing: (annotations on deployment does not match|Waiting for rollout|waiting for spec update)/.test(entry)),
      history.join('\n'),
    ).toBe(true);
    const deployment = await harness.env.client.get<CsvObject & { spec: { template: { metadata: { annotations: Record<string, string> } } } }>({
      ...Kinds.deployment,
      namespace: 'drift-annotations',
      name: 'drift.v1-operator',
    });
    expect(deployment.spec.template.metadata.annotations['olm.targetNamespaces']).toBe('drift-annotations');
  });

  it('reinstalls when the CSV deployment spec changes, and removes deployments the CSV no longer lists', async () => {
    await namespaceWithGroup(harness.env.client, 'drift-spec');
    await harness.env.client.create(csv({ namespace: 'drift-spec', name: 'spec.v1', deployments: ['first'] }));
    await waitForPhase(harness.env.client, 'drift-spec', 'spec.v1', 'Succeeded', undefined, 20_000);
    const changed = deploymentSpec('first');
    (changed.template as { spec: { containers: Array<{ image: string }> } }).spec.containers[0]!.image = 'example.com/operator:v2';
    await harness.env.client.patch({ ...Kinds.clusterServiceVersion, namespace: 'drift-spec', name: 'spec.v1' }, { spec: { install: { strategy: 'deployment', spec: { deployments: [{ name: 'first', spec: changed }] } } } });
    const history = await historyUntil(harness.env.client, 'drift-spec', 'spec.v1', (current) => {
      const conditions = current.status?.conditions ?? [];
      return current.status?.phase === 'Succeeded' && conditions.some((condition) => condition.reason === 'ComponentUnhealthy');
    }, 20_000);
    expect(history.some((entry) => entry.startsWith('InstallReady/ComponentUnhealthy/installing: deployment changed old hash='))).toBe(true);
    const live = await harness.env.client.get<CsvObject & { spec: { template: { spec: { containers: Array<{ image: string }> } } } }>({
      ...Kinds.deployment,
      namespace: 'drift-spec',
      name: 'first',
    });
    expect(live.spec.template.spec.containers[0]!.image).toBe('example.com/operator:v2');

    // The deployment is renamed in the CSV: the new one is made, the orphan removed.
    await harness.env.client.patch(
      { ...Kinds.clusterServiceVersion, namespace: 'drift-spec', name: 'spec.v1' },
      { spec: { install: { strategy: 'deployment', spec: { deployments: [{ name: 'second', spec: deploymentSpec('second') }] } } } },
    );
    await eventually(async () => !(await harness.env.client.find({ ...Kinds.deployment, namespace: 'drift-spec', name: 'first' })), {
      timeoutMs: 20_000,
      message: 'orphaned deployment removed',
    });
    await eventually(async () => {
      const current = await getCsv(harness.env.client, 'drift-spec', 'spec.v1');
      const deployment = await harness.env.client.find({ ...Kinds.deployment, namespace: 'drift-spec', name: 'second' });
      return current?.status?.phase === 'Succeeded' && deployment !== undefined;
    }, { timeoutMs: 20_000, message: 'second deployment installed' });
  });

  it('reinstalls a deleted deployment (Failed/ComponentUnhealthy → Pending/NeedsReinstall → … → Succeeded)', async () => {
    await namespaceWithGroup(harness.env.client, 'drift-delete');
    await harness.env.client.create(csv({ namespace: 'drift-delete', name: 'del.v1' }));
    await waitForPhase(harness.env.client, 'drift-delete', 'del.v1', 'Succeeded', undefined, 20_000);
    await harness.env.client.delete({ ...Kinds.deployment, namespace: 'drift-delete', name: 'del.v1-operator' });
    const history = await historyUntil(harness.env.client, 'drift-delete', 'del.v1', seenAfter('missing deployment with name=del.v1-operator'), 20_000);
    expect(history.some((entry) => entry.startsWith('Pending/NeedsReinstall/installing: missing deployment')), history.join('\n')).toBe(true);
    expect(history, history.join('\n')).toContain('Failed/ComponentUnhealthy/installing: missing deployment with name=del.v1-operator');
    expect(await harness.env.client.find({ ...Kinds.deployment, namespace: 'drift-delete', name: 'del.v1-operator' })).toBeDefined();
  });
});

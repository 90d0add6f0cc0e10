import { afterEach, describe, expect, it } from 'vitest';
import { csv, defaultServiceAccount, namespaceWithGroup, startController, startEnvironment, waitForPhase, type Environment } from './helpers.js';

/** `spec.minKubeVersion` against the version a real (local) API server reports on /version. */
describe('minKubeVersion', () => {
  const running: Array<{ stop(): Promise<void> }> = [];
  afterEach(async () => {
    for (const part of running.splice(0).reverse()) await part.stop();
  });

  async function clusterAt(kubernetesVersion: string): Promise<Environment> {
    const env = await startEnvironment({ kubernetesVersion });
    running.push(env);
    running.push(await startController(env));
    await namespaceWithGroup(env.client, 'versioned');
    await defaultServiceAccount(env.client, 'versioned');
    return env;
  }

  const requirement = (status: { requirementStatus?: Array<{ kind: string; name: string; status: string; message: string }> } | undefined) =>
    status?.requirementStatus?.find((entry) => entry.kind === 'ClusterServiceVersion');

  it('keeps a CSV needing a newer Kubernetes in Pending/RequirementsNotMet, as upstream words it', async () => {
    const { client } = await clusterAt('v1.28.3');
    await client.create(csv({ namespace: 'versioned', name: 'needs-1-30.v1', minKubeVersion: '1.30.0' }));
    const pending = await waitForPhase(client, 'versioned', 'needs-1-30.v1', 'Pending', 'RequirementsNotMet');
    expect(pending.status?.message).toBe("one or more requirements couldn't be found");
    expect(requirement(pending.status)).toMatchObject({
      name: 'needs-1-30.v1',
      status: 'PresentNotSatisfied',
      message: 'CSV version requirement not met: minKubeVersion (1.30.0) > server version (1.28.3)',
    });
  });

  it('installs the same CSV on a server that reports a newer version', async () => {
    const { client } = await clusterAt('v1.31.0');
    await client.create(csv({ namespace: 'versioned', name: 'needs-1-30.v1', minKubeVersion: '1.30.0' }));
    const succeeded = await waitForPhase(client, 'versioned', 'needs-1-30.v1', 'Succeeded');
    expect(requirement(succeeded.status)).toMatchObject({ status: 'Present', message: 'CSV minKubeVersion (1.30.0) less than server version (v1.31.0)' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createNamespace,
  createOperatorGroup,
  csv,
  eventually,
  getCsv,
  groupSynced,
  startController,
  startEnvironment,
  waitForPhase,
  type CsvObject,
  type Environment,
} from './helpers.js';

let env: Environment;
let controller: Awaited<ReturnType<typeof startController>>;

beforeAll(async () => {
  // Rollouts take longer than the install timeout, so an install times out before it turns healthy.
  env = await startEnvironment({ rolloutDelayMs: 600 });
  controller = await startController(env, { installTimeoutMs: 150 });
});
afterAll(async () => {
  await controller?.stop();
  await env?.stop();
});

async function namespaceWithGroup(namespace: string) {
  await createNamespace(env.client, namespace);
  await createOperatorGroup(env.client, namespace, 'og');
  await groupSynced(env.client, namespace, 'og');
}

/** Every phase/reason/message the CSV's history showed while `until` was not yet true. */
async function historyUntil(namespace: string, name: string, until: (csv: CsvObject) => boolean, timeoutMs = 15_000): Promise<string[]> {
  const history = new Set<string>();
  await eventually(
    async () => {
      const current = await getCsv(env.client, namespace, name);
      for (const condition of current?.status?.conditions ?? []) history.add(`${condition.phase}/${condition.reason}/${condition.message}`);
      return current !== undefined && until(current);
    },
    { timeoutMs, message: `${namespace}/${name}` },
  );
  return [...history];
}

describe('install health', () => {
  it('fails InstallCheckFailed "install timeout" when Installing stays unhealthy past the timeout, then reinstalls and succeeds', async () => {
    await namespaceWithGroup('slow');
    await env.client.create(csv({ namespace: 'slow', name: 'slow.v1' }));
    const history = await historyUntil('slow', 'slow.v1', (current) => current.status?.phase === 'Succeeded');
    expect(history, history.join('\n')).toContain('Failed/InstallCheckFailed/install timeout');
    expect(history.some((entry) => entry.startsWith('Pending/NeedsReinstall/installing: '))).toBe(true);
  });

  it('fails InstallCheckFailed "install failed: …" on ProgressDeadlineExceeded and recovers once the deployment does', async () => {
    await namespaceWithGroup('broken');
    env.server.failDeployment('broken', 'broken.v1-operator');
    await env.client.create(csv({ namespace: 'broken', name: 'broken.v1' }));
    const failed = await eventually(
      async () => {
        const current = await getCsv(env.client, 'broken', 'broken.v1');
        return current?.status?.phase === 'Failed' && current.status.message?.startsWith('install failed: ') ? current : undefined;
      },
      { message: 'install failed' },
    );
    expect(failed.status?.reason).toBe('InstallCheckFailed');
    expect(failed.status?.message).toContain('broken.v1-operator');
    const events = await env.client.list<CsvObject & { type?: string; reason?: string }>(
      { apiVersion: 'v1', kind: 'Event' },
      { namespace: 'broken', fieldSelector: 'involvedObject.name=broken.v1' },
    );
    expect(events.items.some((event) => event.type === 'Warning' && event.reason === 'InstallCheckFailed')).toBe(true);
    env.server.recoverDeployment('broken', 'broken.v1-operator');
    await waitForPhase(env.client, 'broken', 'broken.v1', 'Succeeded');
  });
});


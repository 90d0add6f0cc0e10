import { describe, expect, it } from 'vitest';
import {
  csv,
  eventually,
  getCsv,
  historyUntil,
  namespaceWithGroup,
  useController,
  waitForPhase,
  type CsvObject,
} from './helpers.js';

// Rollouts take longer than the install timeout, so an install times out before it turns healthy.
const harness = useController({ rolloutDelayMs: 600 }, { installTimeoutMs: 150 });

describe('install health', () => {
  it('fails InstallCheckFailed "install timeout" when Installing stays unhealthy past the timeout, then reinstalls and succeeds', async () => {
    await namespaceWithGroup(harness.env.client, 'slow');
    await harness.env.client.create(csv({ namespace: 'slow', name: 'slow.v1' }));
    const history = await historyUntil(harness.env.client, 'slow', 'slow.v1', (current) => current.status?.phase === 'Succeeded');
    expect(history, history.join('\n')).toContain('Failed/InstallCheckFailed/install timeout');
    expect(history.some((entry) => entry.startsWith('Pending/NeedsReinstall/installing: '))).toBe(true);
  });

  it('fails InstallCheckFailed "install failed: …" on ProgressDeadlineExceeded and recovers once the deployment does', async () => {
    await namespaceWithGroup(harness.env.client, 'broken');
    harness.env.server.failDeployment('broken', 'broken.v1-operator');
    await harness.env.client.create(csv({ namespace: 'broken', name: 'broken.v1' }));
    const failed = await eventually(
      async () => {
        const current = await getCsv(harness.env.client, 'broken', 'broken.v1');
        return current?.status?.phase === 'Failed' && current.status.message?.startsWith('install failed: ') ? current : undefined;
      },
      { message: 'install failed' },
    );
    expect(failed.status?.reason).toBe('InstallCheckFailed');
    expect(failed.status?.message).toContain('broken.v1-operator');
    const events = await harness.env.client.list<CsvObject & { type?: string; reason?: string }>(
      { apiVersion: 'v1', kind: 'Event' },
      { namespace: 'broken', fieldSelector: 'involvedObject.name=broken.v1' },
    );
    expect(events.items.some((event) => event.type === 'Warning' && event.reason === 'InstallCheckFailed')).toBe(true);
    harness.env.server.recoverDeployment('broken', 'broken.v1-operator');
    await waitForPhase(harness.env.client, 'broken', 'broken.v1', 'Succeeded');
  });
});


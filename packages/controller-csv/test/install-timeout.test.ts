import { describe, expect, it } from 'vitest';
import { csv, getCsv, historyUntil, namespaceWithGroup, sleep, useController, waitForPhase, type CsvObject } from './helpers.js';

// The default install timeout (5 minutes), on a clock the test moves; rollouts never finish meanwhile.
let offsetMs = 0;
const harness = useController({ rolloutDelayMs: 120_000 }, { clock: () => new Date(Date.now() + offsetMs) });

describe('install timeout', () => {
  it('keeps an unhealthy CSV Installing for 5 minutes after its last transition, then fails InstallCheckFailed "install timeout"', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(client, 'timeout');
    await client.create(csv({ namespace: 'timeout', name: 'slow.v1' }));
    const installing = await waitForPhase(client, 'timeout', 'slow.v1', 'Installing', 'InstallWaiting');
    const transition = Date.parse(installing.status!.lastTransitionTime!);

    // Two seconds short of five minutes: still Installing.
    offsetMs = transition + 298_000 - Date.now();
    await sleep(500);
    const early = await getCsv(client, 'timeout', 'slow.v1');
    expect(early?.status).toMatchObject({ phase: 'Installing', reason: 'InstallWaiting' });
    expect(early?.status?.conditions?.map((condition) => condition.phase)).not.toContain('Failed');

    // Five minutes: the next health check fails it.
    offsetMs = transition + 300_000 - Date.now();
    // (Failed does not last: as upstream, a failed CSV whose deployment is merely unhealthy goes to
    // Pending/NeedsReinstall and installs again, so the history is what shows it.)
    const timedOut = (current: CsvObject) =>
      (current.status?.conditions as Array<{ phase: string; reason: string; message: string; lastTransitionTime: string }> | undefined)?.find(
        (condition) => `${condition.phase}/${condition.reason}/${condition.message}` === 'Failed/InstallCheckFailed/install timeout',
      );
    let failedAt = '';
    await historyUntil(client, 'timeout', 'slow.v1', (current) => {
      failedAt = timedOut(current)?.lastTransitionTime ?? '';
      return failedAt !== '';
    });
    expect(Date.parse(failedAt) - transition).toBeGreaterThanOrEqual(300_000);
  });
});

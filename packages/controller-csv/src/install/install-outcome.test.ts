import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersionPhase } from '@olm/api';
import { installOutcome, isInstalled, strategyOnly, type InstallChecks } from './install-outcome.js';

const healthy = { healthy: true } as const;
const waiting = { healthy: false, reason: 'Waiting', message: 'waiting for deployment op to become ready' } as const;
const ready = { available: true } as const;
const outcome = (checks: Partial<InstallChecks>, phase: ClusterServiceVersionPhase = 'Installing', reason = 'InstallWaiting') =>
  installOutcome({ strategy: healthy, apiServices: ready, webhooks: ready, ...checks }, phase, reason);

describe('installOutcome (upstream updateInstallStatus)', () => {
  it('Succeeded when the deployments, APIServices and webhooks are all installed', () => {
    expect(outcome({})).toEqual({ phase: 'Succeeded', reason: 'InstallSucceeded', message: 'install strategy completed with no errors' });
    expect(isInstalled(strategyOnly(healthy))).toBe(true);
    expect(isInstalled(strategyOnly(waiting))).toBe(false);
  });

  it('changes nothing while the API server is unavailable', () => {
    expect(outcome({ apiServices: { available: false, retry: true }, strategy: { ...waiting, unrecoverable: true } })).toBe('retry');
    expect(outcome({ webhooks: { available: false, retry: true } })).toBe('retry');
  });

  it('in upstream order: unrecoverable strategy, APIService error, APIServices not available, webhook error, webhooks missing, strategy error', () => {
    const unrecoverable = { healthy: false, reason: 'Timeout', unrecoverable: true, message: 'deployment "op" exceeded its progress deadline' };
    const apiError = { available: false, error: 'boom' };
    const notAvailable = { available: false };
    const webhookError = { available: false, error: 'conversionWebhook not ready' };
    expect(outcome({ strategy: unrecoverable, apiServices: apiError, webhooks: webhookError })).toEqual({
      phase: 'Failed',
      reason: 'InstallCheckFailed',
      message: 'install failed: deployment "op" exceeded its progress deadline',
    });
    expect(outcome({ strategy: waiting, apiServices: apiError, webhooks: webhookError })).toEqual({ phase: 'Failed', reason: 'APIServiceInstallFailed', message: 'APIService install failed: boom' });
    expect(outcome({ strategy: waiting, apiServices: notAvailable, webhooks: webhookError })).toEqual({ phase: 'Installing', reason: 'InstallWaiting', message: 'apiServices not installed' });
    expect(outcome({ strategy: waiting, webhooks: webhookError }, 'Failed', 'ComponentUnhealthy')).toEqual({
      phase: 'InstallReady',
      reason: 'ComponentUnhealthy',
      message: 'Webhook install failed: conversionWebhook not ready',
    });
    expect(outcome({ strategy: waiting, webhooks: notAvailable }, 'Pending', 'NeedsReinstall')).toEqual({ phase: 'Pending', reason: 'NeedsReinstall', message: 'webhooks not installed' });
    expect(outcome({ strategy: waiting })).toEqual({ phase: 'Installing', reason: 'InstallWaiting', message: 'installing: waiting for deployment op to become ready' });
  });

  it('a changed deployment or missing annotations go back to InstallReady', () => {
    for (const reason of ['DeploymentUpdated', 'AnnotationsMissing']) {
      expect(outcome({ strategy: { healthy: false, reason, message: 'changed' } }, 'Failed', 'ComponentUnhealthy')).toEqual({
        phase: 'InstallReady',
        reason: 'ComponentUnhealthy',
        message: 'installing: changed',
      });
    }
  });
});

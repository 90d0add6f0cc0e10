import { describe, expect, it } from 'vitest';
import {
  dependencySubscriptionName,
  installPlanApproval,
  installPlansToCollect,
  nextInstallPlanGeneration,
  nextInstallPlanState,
  orderSteps,
  type InstallPlanState,
} from './install-plan-rules.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

describe('InstallPlan rules', () => {
  it('numbers generations past every Subscription and InstallPlan', () => {
    expect(nextInstallPlanGeneration([], [])).toBe(1);
    expect(nextInstallPlanGeneration([2, undefined], [1, 4])).toBe(5);
  });

  it('asks for approval when any Subscription is Manual', () => {
    expect(installPlanApproval(['Automatic', undefined])).toBe('Automatic');
    expect(installPlanApproval(['Automatic', 'Manual'])).toBe('Manual');
  });

  it('keeps the five newest generations', () => {
    const plans = [1, 2, 3, 4, 5, 6, 7].map((generation) => ({ name: `install-${generation}`, generation }));
    expect(installPlansToCollect(plans).map((plan) => plan.name)).toEqual(['install-2', 'install-1']);
    expect(installPlansToCollect(plans.slice(0, 5))).toEqual([]);
  });

  it('names dependency Subscriptions <pkg>-<channel>-<catalog>-<catalogNs>', () => {
    expect(dependencySubscriptionName('etcd', 'alpha', 'community', 'olm')).toBe('etcd-alpha-community-olm');
  });

  it('orders steps CSVs, then CRDs, then the rest, keeping order within each group', () => {
    const kinds = ['ServiceAccount', 'CustomResourceDefinition', 'ClusterServiceVersion', 'Role', 'CustomResourceDefinition', 'ClusterServiceVersion'];
    const ordered = orderSteps(kinds.map((kind, index) => ({ resource: { kind }, index })));
    expect(ordered.map((step) => `${step.resource.kind}#${step.index}`)).toEqual([
      'ClusterServiceVersion#2',
      'ClusterServiceVersion#5',
      'CustomResourceDefinition#1',
      'CustomResourceDefinition#4',
      'ServiceAccount#0',
      'Role#3',
    ]);
  });

  describe('phase transitions', () => {
    it('waits in RequiresApproval until approved, then installs', () => {
      const waiting: InstallPlanState = { phase: 'RequiresApproval', approved: false };
      expect(nextInstallPlanState(waiting, undefined, at(0))).toBe(waiting);
      expect(nextInstallPlanState({ ...waiting, approved: true }, undefined, at(0)).phase).toBe('Installing');
    });

    it('retries an execution error within the timeout, then fails with the Installed condition', () => {
      const installing: InstallPlanState = { phase: 'Installing', approved: true, startTime: '2026-01-01T00:00:00Z' };
      const retrying = nextInstallPlanState(installing, { kind: 'error', message: 'etcd unavailable' }, at(30));
      expect(retrying.phase).toBe('Installing');
      expect(retrying.message).toBe('retrying execution due to error: etcd unavailable');
      const failed = nextInstallPlanState(installing, { kind: 'error', message: 'etcd unavailable' }, at(61));
      expect(failed.phase).toBe('Failed');
      expect(failed.conditions).toEqual([
        expect.objectContaining({ type: 'Installed', status: 'False', reason: 'InstallComponentFailed', message: 'etcd unavailable' }),
      ]);
    });

    it('keeps retrying Forbidden errors past the timeout', () => {
      const installing: InstallPlanState = { phase: 'Installing', approved: true, startTime: '2026-01-01T00:00:00Z' };
      expect(nextInstallPlanState(installing, { kind: 'error', message: 'forbidden', forbidden: true }, at(300)).phase).toBe('Installing');
    });

    it('completes once no step waits for its API', () => {
      const installing: InstallPlanState = { phase: 'Installing', approved: true };
      expect(nextInstallPlanState(installing, { kind: 'done', waitingForApi: true }, at(1)).phase).toBe('Installing');
      const complete = nextInstallPlanState(installing, { kind: 'done', waitingForApi: false }, at(2));
      expect(complete.phase).toBe('Complete');
      expect(complete.conditions?.[0]).toMatchObject({ type: 'Installed', status: 'True' });
    });

    it('never leaves Complete or Failed', () => {
      for (const phase of ['Complete', 'Failed'] as const) {
        const state = { phase, approved: true };
        expect(nextInstallPlanState(state, { kind: 'error', message: 'x' }, at(1))).toBe(state);
      }
    });
  });
});

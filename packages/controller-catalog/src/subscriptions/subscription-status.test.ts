import { describe, expect, it } from 'vitest';
import {
  getCondition,
  removeConditions,
  setCondition,
  updateCatalogHealth,
  updateCsvState,
  updateInstallPlanConditions,
  type CatalogHealth,
} from './subscription-status.js';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
const health = (name: string, healthy: boolean, namespace = 'olm'): CatalogHealth => ({
  catalogSourceRef: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', name, namespace, uid: `${namespace}-${name}` },
  lastUpdated: '2026-01-01T00:00:00Z',
  healthy,
});
const subscription = (status = {}) => ({ spec: { source: 'community', sourceNamespace: 'olm' }, status });

describe('catalog health', () => {
  it('reports all healthy, first as the catalogs being added', () => {
    const { status, changed } = updateCatalogHealth(subscription(), [health('community', true)], at(1));
    expect(changed).toBe(true);
    expect(getCondition(status, 'CatalogSourcesUnhealthy')).toMatchObject({
      status: 'False',
      reason: 'CatalogSourcesAdded',
      message: 'all available catalogsources are healthy',
    });
    expect(status.catalogHealth).toHaveLength(1);
    const again = updateCatalogHealth(subscription(status), [health('community', true)], at(2));
    expect(again.changed).toBe(true);
    expect(getCondition(again.status, 'CatalogSourcesUnhealthy')?.reason).toBe('AllCatalogSourcesHealthy');
    expect(updateCatalogHealth(subscription(again.status), [health('community', true)], at(3)).changed).toBe(false);
  });

  it('names a missing targeted catalog', () => {
    const { status } = updateCatalogHealth(subscription({ catalogHealth: [health('other', true)] }), [health('other', true)], at(1));
    expect(getCondition(status, 'CatalogSourcesUnhealthy')).toMatchObject({
      status: 'True',
      reason: 'UnhealthyCatalogSourceFound',
      message: 'targeted catalogsource olm/community missing',
    });
  });

  it('names an unhealthy targeted catalog and says the catalogs were updated', () => {
    const { status } = updateCatalogHealth(
      subscription({ catalogHealth: [health('community', true)] }),
      [health('community', false)],
      at(1),
    );
    expect(getCondition(status, 'CatalogSourcesUnhealthy')).toMatchObject({
      status: 'True',
      reason: 'CatalogSourcesUpdated',
      message: 'targeted catalogsource olm/community unhealthy',
    });
  });

  it('says when there are no catalogs at all', () => {
    const { status } = updateCatalogHealth(subscription(), [], at(1));
    expect(getCondition(status, 'CatalogSourcesUnhealthy')).toMatchObject({
      status: 'True',
      reason: 'NoCatalogSourcesFound',
      message: 'dependency resolution requires at least one catalogsource',
    });
  });
});

describe('InstallPlan conditions', () => {
  it('is pending while the plan waits for approval, with the plan phase as reason', () => {
    const { status } = updateInstallPlanConditions({ state: 'UpgradePending' }, { phase: 'RequiresApproval' }, at(1));
    expect(getCondition(status, 'InstallPlanPending')).toMatchObject({ status: 'True', reason: 'RequiresApproval' });
  });

  it('says a plan was not reconciled yet when it has no phase', () => {
    const { status } = updateInstallPlanConditions({}, {}, at(1));
    expect(getCondition(status, 'InstallPlanPending')?.reason).toBe('InstallPlanNotYetReconciled');
  });

  it('projects a failed plan with its Installed condition reason and message', () => {
    const { status } = updateInstallPlanConditions(
      { conditions: [{ type: 'InstallPlanPending', status: 'True', reason: 'Installing' }] },
      { phase: 'Failed', conditions: [{ type: 'Installed', status: 'False', reason: 'InstallComponentFailed', message: 'error creating csv' }] },
      at(1),
    );
    expect(getCondition(status, 'InstallPlanPending')).toBeUndefined();
    expect(getCondition(status, 'InstallPlanFailed')).toMatchObject({ reason: 'InstallComponentFailed', message: 'error creating csv' });
  });

  it('clears the conditions once the plan is complete', () => {
    const before = { conditions: [{ type: 'InstallPlanPending' as const, status: 'True' as const, reason: 'Installing' }] };
    const { status, changed } = updateInstallPlanConditions(before, { phase: 'Complete' }, at(1));
    expect(changed).toBe(true);
    expect(status.conditions).toEqual([]);
    expect(updateInstallPlanConditions(status, { phase: 'Complete' }, at(2)).changed).toBe(false);
  });

  it('resets a pending upgrade whose plan disappeared, and flags a missing plan otherwise', () => {
    const pending = updateInstallPlanConditions(
      { state: 'UpgradePending', currentCSV: 'a.v2', installPlanRef: { name: 'install-x', namespace: 'ns' } },
      undefined,
      at(1),
    );
    expect(pending.status).toMatchObject({ state: '', currentCSV: '' });
    expect(pending.status.installPlanRef).toBeUndefined();
    const latest = updateInstallPlanConditions({ state: 'AtLatestKnown', installPlanRef: { name: 'install-x', namespace: 'ns' } }, undefined, at(1));
    expect(getCondition(latest.status, 'InstallPlanMissing')).toMatchObject({ status: 'True', reason: 'ReferencedInstallPlanNotFound' });
  });
});

describe('CSV state', () => {
  it('is AtLatestKnown once the current CSV exists, UpgradePending before', () => {
    expect(updateCsvState({ currentCSV: 'a.v1' }, false, at(1)).status.state).toBe('UpgradePending');
    const latest = updateCsvState({ currentCSV: 'a.v1', state: 'UpgradePending' }, true, at(2));
    expect(latest.status).toMatchObject({ state: 'AtLatestKnown', installedCSV: 'a.v1' });
    expect(updateCsvState(latest.status, true, at(3)).changed).toBe(false);
    expect(updateCsvState({}, true, at(1)).changed).toBe(false);
  });

  it('is UpgradeFailed only with fail-forward and a failed plan', () => {
    expect(updateCsvState({ currentCSV: 'a.v2' }, false, at(1), { failForward: true, installPlanFailed: true }).status.state).toBe('UpgradeFailed');
    expect(updateCsvState({ currentCSV: 'a.v2' }, false, at(1), { installPlanFailed: true }).status.state).toBe('UpgradePending');
  });
});

describe('conditions', () => {
  it('moves the transition time only when the status changes', () => {
    const first = setCondition({}, { type: 'ResolutionFailed', status: 'True', reason: 'ConstraintsNotSatisfiable', message: 'a' }, at(1));
    const second = setCondition(first.status, { type: 'ResolutionFailed', status: 'True', reason: 'ConstraintsNotSatisfiable', message: 'b' }, at(2));
    expect(getCondition(second.status, 'ResolutionFailed')?.lastTransitionTime).toBe('2026-01-01T00:00:01Z');
    expect(setCondition(second.status, { type: 'ResolutionFailed', status: 'True', reason: 'ConstraintsNotSatisfiable', message: 'b' }, at(3)).changed).toBe(false);
    expect(removeConditions(second.status, ['ResolutionFailed'], at(4)).status.conditions).toEqual([]);
    expect(removeConditions({}, ['ResolutionFailed'], at(4)).changed).toBe(false);
  });
});

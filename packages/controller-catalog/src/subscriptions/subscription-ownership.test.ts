import { describe, expect, it } from 'vitest';
import { ownPartDiffers, withOwnPart } from './subscription-ownership.js';
import type { SubscriptionStatus } from './subscription-status.js';

const condition = (type: string, reason: string) => ({ type, status: 'True' as const, reason, lastTransitionTime: '2026-01-01T00:00:00Z' });

const stored: SubscriptionStatus = {
  state: 'AtLatestKnown',
  currentCSV: 'op.v1',
  catalogHealth: [],
  conditions: [condition('ResolutionFailed', 'ConstraintsNotSatisfiable'), condition('CatalogSourcesUnhealthy', 'UnhealthyCatalogSourceFound'), condition('Deprecated', 'Deprecated')],
  lastUpdated: '2026-01-01T00:00:00Z',
};

describe('subscription status ownership', () => {
  it('takes only the owner part from the desired status, keeping stored condition order', () => {
    const desired: SubscriptionStatus = {
      state: 'UpgradePending',
      currentCSV: 'op.v2',
      catalogHealth: [{ catalogSourceRef: { name: 'c', namespace: 'ns' }, healthy: true, lastUpdated: '2026-02-02T00:00:00Z' }],
      conditions: [condition('CatalogSourcesUnhealthy', 'AllCatalogSourcesHealthy'), condition('BundleUnpacking', 'UnpackingInProgress')],
      lastUpdated: '2026-02-02T00:00:00Z',
    };
    const namespacePart = withOwnPart(stored, desired, 'namespace');
    expect(namespacePart).toEqual({
      state: 'UpgradePending',
      currentCSV: 'op.v2',
      catalogHealth: [],
      // ResolutionFailed and Deprecated are gone (the pass removed them), the subscription reconciler's stays as stored
      conditions: [condition('CatalogSourcesUnhealthy', 'UnhealthyCatalogSourceFound'), condition('BundleUnpacking', 'UnpackingInProgress')],
      lastUpdated: '2026-02-02T00:00:00Z',
    });
    const subscriptionPart = withOwnPart(stored, desired, 'subscription');
    expect(subscriptionPart).toEqual({
      ...stored,
      catalogHealth: desired.catalogHealth,
      conditions: [condition('ResolutionFailed', 'ConstraintsNotSatisfiable'), condition('CatalogSourcesUnhealthy', 'AllCatalogSourcesHealthy'), condition('Deprecated', 'Deprecated')],
      lastUpdated: '2026-02-02T00:00:00Z',
    });
  });

  it('sees no change, and keeps lastUpdated, when only the other part differs', () => {
    const desired: SubscriptionStatus = { ...stored, catalogHealth: [{ catalogSourceRef: { name: 'c', namespace: 'ns' }, healthy: false, lastUpdated: 'x' }], lastUpdated: '2026-03-03T00:00:00Z' };
    expect(ownPartDiffers(stored, desired, 'namespace')).toBe(false);
    expect(withOwnPart(stored, desired, 'namespace')).toBe(stored);
    expect(ownPartDiffers(stored, desired, 'subscription')).toBe(true);
    // the order of conditions is no difference
    expect(ownPartDiffers(stored, { ...stored, conditions: [...stored.conditions!].reverse() }, 'namespace')).toBe(false);
  });
});

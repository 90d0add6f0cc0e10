import { describe, expect, it } from 'vitest';
import { sameConditionState, updatedConditions, withCondition, withoutCondition } from './conditions.js';

const ready = { type: 'Ready', status: 'True', reason: 'Up', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' };
const degraded = { type: 'Degraded', status: 'False', reason: 'Fine', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };

describe('conditions', () => {
  it('replaces a condition in place and keeps its transition time while the status stays', () => {
    const next = withCondition([ready, degraded], { ...ready, reason: 'StillUp', lastTransitionTime: '2026-02-02T00:00:00Z' });
    expect(next.map((condition) => condition.type)).toEqual(['Ready', 'Degraded']);
    expect(next[0]).toEqual({ ...ready, reason: 'StillUp' });
  });

  it('replaces a condition whole, time included, when asked not to keep the transition time (Subscriptions)', () => {
    const next = withCondition([ready, degraded], { ...ready, reason: 'Again', lastTransitionTime: '2026-03-03T00:00:00Z' }, { keepTransitionTime: false });
    expect(next).toEqual([{ ...ready, reason: 'Again', lastTransitionTime: '2026-03-03T00:00:00Z' }, degraded]);
  });

  it('moves the transition time when the status changes, and appends a new type', () => {
    const changed = withCondition([ready], { ...ready, status: 'False', lastTransitionTime: '2026-02-02T00:00:00Z' });
    expect(changed[0]?.lastTransitionTime).toBe('2026-02-02T00:00:00Z');
    expect(withCondition([ready], degraded).map((condition) => condition.type)).toEqual(['Ready', 'Degraded']);
    expect(withCondition(undefined, ready)).toEqual([ready]);
  });

  it('compares by type, status, reason and message only, and removes by type', () => {
    expect(sameConditionState(ready, { ...ready, lastTransitionTime: 'later' })).toBe(true);
    expect(sameConditionState(ready, { ...ready, message: 'other' })).toBe(false);
    expect(sameConditionState({ type: 'A', status: 'True' }, { type: 'A', status: 'True', reason: '', message: '' })).toBe(true);
  });
});

const other = { type: 'Other', status: 'True' as const, reason: 'R', message: 'm', lastTransitionTime: 't0' };
const notFound = { type: 'OperatorGroupServiceAccount', status: 'True' as const, reason: 'ServiceAccountNotFound', message: 'ServiceAccount sa not found' };

describe('metav1.Condition lists', () => {
  it('adds a condition with the given time, and changes nothing when it is already set', () => {
    const added = updatedConditions([other], notFound, 't1')!;
    expect(added).toEqual([other, { ...notFound, lastTransitionTime: 't1' }]);
    expect(updatedConditions(added, notFound, 't2')).toBeUndefined();
  });

  it('keeps the transition time when only reason or message change, and moves it when the status does', () => {
    const added = updatedConditions([other], notFound, 't1')!;
    expect(updatedConditions(added, { ...notFound, message: 'ServiceAccount other not found' }, 't2')![1]).toMatchObject({ message: 'ServiceAccount other not found', lastTransitionTime: 't1' });
    // Replaced in place, not appended.
    expect(updatedConditions(added, { ...notFound, status: 'False' }, 't3')).toEqual([other, { ...notFound, status: 'False', lastTransitionTime: 't3' }]);
  });

  it('removes a condition by type', () => {
    expect(withoutCondition([other, { ...notFound, lastTransitionTime: 't1' }], notFound.type)).toEqual([other]);
    expect(withoutCondition([other], notFound.type)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { sameConditionState, withCondition, withoutConditions } from './conditions.js';

const ready = { type: 'Ready', status: 'True', reason: 'Up', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' };
const degraded = { type: 'Degraded', status: 'False', reason: 'Fine', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };

describe('conditions', () => {
  it('replaces a condition in place and keeps its transition time while the status stays', () => {
    const next = withCondition([ready, degraded], { ...ready, reason: 'StillUp', lastTransitionTime: '2026-02-02T00:00:00Z' });
    expect(next.map((condition) => condition.type)).toEqual(['Ready', 'Degraded']);
    expect(next[0]).toEqual({ ...ready, reason: 'StillUp' });
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
    expect(withoutConditions([ready, degraded], ['Ready'])).toEqual([degraded]);
  });
});

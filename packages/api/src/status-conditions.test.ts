import { describe, expect, it } from 'vitest';
import { withCondition, withoutCondition } from './status-conditions.js';

const other = { type: 'Other', status: 'True' as const, reason: 'R', message: 'm', lastTransitionTime: 't0' };
const notFound = { type: 'OperatorGroupServiceAccount', status: 'True' as const, reason: 'ServiceAccountNotFound', message: 'ServiceAccount sa not found' };

describe('status conditions', () => {
  it('adds a condition with the given time, and changes nothing when it is already set', () => {
    const added = withCondition([other], notFound, 't1')!;
    expect(added).toEqual([other, { ...notFound, lastTransitionTime: 't1' }]);
    expect(withCondition(added, notFound, 't2')).toBeUndefined();
  });

  it('keeps the transition time when only reason or message change, and moves it when the status does', () => {
    const added = withCondition([other], notFound, 't1')!;
    expect(withCondition(added, { ...notFound, message: 'ServiceAccount other not found' }, 't2')![1]).toMatchObject({ message: 'ServiceAccount other not found', lastTransitionTime: 't1' });
    // Replaced in place, not appended.
    expect(withCondition(added, { ...notFound, status: 'False' }, 't3')).toEqual([other, { ...notFound, status: 'False', lastTransitionTime: 't3' }]);
  });

  it('removes a condition by type', () => {
    expect(withoutCondition([other, { ...notFound, lastTransitionTime: 't1' }], notFound.type)).toEqual([other]);
    expect(withoutCondition([other], notFound.type)).toBeUndefined();
  });
});

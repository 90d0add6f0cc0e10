import { describe, expect, it } from 'vitest';
import { conditionsLengthLimit, isSamePhase, setCsvPhase } from './csv-status.js';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

describe('CSV status transitions', () => {
  it('moves the transition time only when the phase changes', () => {
    const pending = setCsvPhase({}, 'Pending', 'RequirementsUnknown', 'requirements not yet checked', at(1));
    const stillPending = setCsvPhase(pending, 'Pending', 'RequirementsNotMet', 'one or more requirements couldn\'t be found', at(2));
    expect(stillPending.lastTransitionTime).toBe('2026-01-01T00:00:01Z');
    expect(stillPending.lastUpdateTime).toBe('2026-01-01T00:00:02Z');
    const ready = setCsvPhase(stillPending, 'InstallReady', 'AllRequirementsMet', 'all requirements found, attempting install', at(3));
    expect(ready.lastTransitionTime).toBe('2026-01-01T00:00:03Z');
  });

  it('appends history only when phase or reason differs from the newest entry', () => {
    let status = setCsvPhase({}, 'Pending', 'RequirementsNotMet', 'first', at(1));
    status = setCsvPhase(status, 'Pending', 'RequirementsNotMet', 'second', at(2));
    expect(status.conditions).toHaveLength(1);
    status = setCsvPhase(status, 'Pending', 'RequirementsUnknown', 'third', at(3));
    expect(status.conditions?.map((condition) => condition.reason)).toEqual(['RequirementsNotMet', 'RequirementsUnknown']);
  });

  it('keeps only the newest 20 history entries', () => {
    let status = {};
    for (let i = 0; i < 30; i++) status = setCsvPhase(status, i % 2 ? 'Pending' : 'Failed', `Reason${i}`, 'm', at(i));
    const conditions = (status as { conditions: Array<{ reason: string }> }).conditions;
    expect(conditions).toHaveLength(conditionsLengthLimit);
    expect(conditions[0]!.reason).toBe('Reason10');
    expect(conditions.at(-1)!.reason).toBe('Reason29');
  });

  it('tells when a transition changes nothing', () => {
    const status = setCsvPhase({}, 'Failed', 'NoOperatorGroup', 'csv in namespace with no operatorgroups', at(1));
    expect(isSamePhase(status, 'Failed', 'NoOperatorGroup', 'csv in namespace with no operatorgroups')).toBe(true);
    expect(isSamePhase(status, 'Failed', 'NoOperatorGroup', 'other')).toBe(false);
  });
});

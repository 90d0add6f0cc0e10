import type { Condition } from '@olm/api';
import { describe, expect, it } from 'vitest';
import { mirroredStatusConditions } from './condition-status-sync.js';

const now = '2026-02-02T00:00:00Z';
const upgradeable = (status: 'True' | 'False', extra: Partial<Condition> = {}): Condition => ({
  type: 'Upgradeable',
  status,
  reason: status === 'True' ? 'Ready' : 'Migrating',
  message: status === 'True' ? 'ready' : 'migration running',
  lastTransitionTime: '2026-01-01T00:00:00Z',
  ...extra,
});

describe('mirroring spec.conditions into status', () => {
  it('copies a new condition, observed at the generation', () => {
    expect(mirroredStatusConditions([upgradeable('False')], undefined, 3, now)).toEqual([{ ...upgradeable('False'), observedGeneration: 3 }]);
  });

  it('changes nothing when status already has it at this generation', () => {
    expect(mirroredStatusConditions([upgradeable('False')], [{ ...upgradeable('False'), observedGeneration: 3 }], 3, now)).toBeUndefined();
    expect(mirroredStatusConditions(undefined, [upgradeable('False')], 3, now)).toBeUndefined();
  });

  it('re-observes a condition at a new generation, keeping its transition time while its status stays', () => {
    const status = [{ ...upgradeable('False', { lastTransitionTime: '2025-12-31T00:00:00Z' }), observedGeneration: 2 }];
    expect(mirroredStatusConditions([upgradeable('False', { message: 'still migrating' })], status, 3, now)).toEqual([
      { ...upgradeable('False', { message: 'still migrating', lastTransitionTime: '2025-12-31T00:00:00Z' }), observedGeneration: 3 },
    ]);
  });

  it('takes the new status and its transition time (now when the operator gave none), and keeps other status conditions', () => {
    const other: Condition = { type: 'Degraded', status: 'False', reason: 'Fine', message: '', lastTransitionTime: '2025-01-01T00:00:00Z' };
    const status = [other, { ...upgradeable('False'), observedGeneration: 2 }];
    expect(mirroredStatusConditions([upgradeable('True', { lastTransitionTime: '' })], status, 3, now)).toEqual([
      other,
      { ...upgradeable('True'), lastTransitionTime: now, observedGeneration: 3 },
    ]);
  });

  it('ignores a spec condition without a type or status', () => {
    expect(mirroredStatusConditions([{ reason: 'x' } as unknown as Condition], [], 1, now)).toBeUndefined();
  });
});

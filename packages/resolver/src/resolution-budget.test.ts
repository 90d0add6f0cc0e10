import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { EvaluationMeter, resolveResolutionLimits, defaultResolutionLimits } from './resolution-budget.js';

const bundle = (name: string) => ({ id: `community/olm/stable/${name}`, name, catalog: { name: 'community', namespace: 'olm' } });
const constraint = (text: string, failureMessages: string[] = []) => ({ describe: () => text, failureMessages });

describe('EvaluationMeter', () => {
  it('blames the bundle that spent the most, not the one that spent last', () => {
    const meter = new EvaluationMeter(100);
    const costly = constraint('with constraint: "costly" and message: ""');
    meter.chargeTo(bundle('hostile.v1'), constraint('with constraint: "cheap" and message: ""'));
    meter.spend(10);
    meter.chargeTo(bundle('hostile.v1'), costly);
    meter.spend(80);
    meter.chargeTo(bundle('innocent.v1'), constraint('with package: etcd', ['needs etcd']));
    let caught: unknown;
    try {
      meter.spend(11);
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, 'OLM_RESOLVER_BUDGET_EXHAUSTED')).toBe(true);
    expect((caught as Error).message).toContain(
      'bundle hostile.v1 (catalogsource olm/community) spent 90 of them on 2 constraints, the costliest (80 units) being the one with constraint: "costly"',
    );
    expect(meter.isExhausted).toBe(true);
    // Every later spend throws the same error.
    expect(() => meter.spend(0)).toThrow(caught as Error);
  });

  it('abbreviates a long constraint and adds failureMessages its text does not show', () => {
    const meter = new EvaluationMeter(1);
    meter.chargeTo(bundle('app.v1'), constraint(`with package: ${'x'.repeat(1_000)}`, ['needs x']));
    expect(() => meter.spend(2)).toThrow(/its constraint with package: x+…x+ \(failureMessage: needs x\); simplify/);
  });
});

describe('resolveResolutionLimits', () => {
  it('fills in the defaults', () => {
    expect(resolveResolutionLimits({ solverCalls: 5 })).toEqual({ ...defaultResolutionLimits, solverCalls: 5 });
  });
});

import type { CatalogContent, Property } from '@olm/core';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { builtInConstraintEvaluators, createResolver, type ResolveInput } from '../src/index.js';
import { bundle, catalog, gvk, pkg } from './catalog-builder.js';

// A resolution in slices gives the event loop a turn every few milliseconds, so a costly one in one
// namespace does not starve the API server or the resolution of another namespace in the process.

const fifty = `[${Array.from({ length: 50 }, (_, index) => index).join(', ')}]`;
const rule = (index: number) => `${fifty}.exists(a, ${fifty}.exists(b, a * b == ${100_000 + index}))`;

/** `slow.v1` carries 40 distinct CEL rules tested on 60 candidates: a few seconds of work, with no budget. */
function content(): CatalogContent {
  const constraints = Array.from({ length: 40 }, (_, index): Property => ({ type: 'olm.constraint', value: { any: { constraints: [{ cel: { rule: rule(index) } }, { gvk: gvk(`Kind${index}`) }] } } }));
  return catalog(
    pkg('slow', 'stable', { stable: [{ name: 'slow.v1' }] }, [bundle('slow.v1', 'slow', '1.0.0', { properties: constraints })]),
    pkg('fast', 'stable', { stable: [{ name: 'fast.v1' }] }, [bundle('fast.v1', 'fast', '1.0.0', { requires: [gvk('Kind0')] })]),
    ...Array.from({ length: 60 }, (_, index) =>
      pkg(`p${index}`, 'stable', { stable: [{ name: `p${index}.v1` }] }, [bundle(`p${index}.v1`, `p${index}`, '1.0.0', { provides: [gvk(`Kind${index}`)] })]),
    ),
  );
}

const shared = content();
const subscribe = (namespace: string, packageName: string): ResolveInput => ({
  namespace,
  catalogs: [{ name: 'community', namespace: 'olm', content: shared }],
  subscriptions: [{ name: packageName, package: packageName, channel: 'stable', source: 'community', sourceNamespace: 'olm' }],
});

// A fresh evaluator per use: one that has seen `slow` answers from its cache in well under a slice.
const newResolver = () =>
  createResolver({
    satBackend: createLogicSolverBackend(),
    constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()],
    limits: { evaluationUnits: Number.MAX_SAFE_INTEGER },
  });
const resolver = newResolver();

describe('resolveInSlices', () => {
  it('lets timers and another namespace run while a costly resolution is under way', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      let ticksWhenSlowDone: number | undefined;
      const slow = resolver.resolveInSlices(subscribe('team-slow', 'slow'), { sliceMs: 5 }).finally(() => {
        ticksWhenSlowDone = ticks;
      });
      // Started after the slow one, and finished before it.
      const fast = await resolver.resolveInSlices(subscribe('team-fast', 'fast'), { sliceMs: 5 });
      expect(fast.operators.map((operator) => operator.name)).toEqual(['fast.v1', 'p0.v1']);
      expect(ticksWhenSlowDone).toBeUndefined();
      const resolution = await slow;
      // Run at once, the resolution would have kept the timer from firing until it was done.
      expect(ticksWhenSlowDone).toBeGreaterThan(0);
      expect(resolution.operators.map((operator) => operator.name)).toContain('slow.v1');
      // The same answer as at once.
      expect(resolution.operators).toEqual(resolver.resolve(subscribe('team-slow', 'slow')).operators);
    } finally {
      clearInterval(timer);
    }
  });

  it('stops at the next pause when aborted, rejecting with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('manager stopping');
    const uncached = newResolver();
    const running = uncached.resolveInSlices(subscribe('team-slow', 'slow'), { sliceMs: 1, signal: controller.signal });
    setImmediate(() => controller.abort(reason));
    await expect(running).rejects.toBe(reason);
    // Nothing was left half-done: the resolver (and its SAT backend) still serves.
    expect(uncached.resolve(subscribe('team-fast', 'fast')).operators.map((operator) => operator.name)).toEqual(['fast.v1', 'p0.v1']);
  });

  it('rejects, never throws, on bad input', async () => {
    const input = { ...subscribe('team-a', 'fast'), catalogs: [...subscribe('team-a', 'fast').catalogs, ...subscribe('team-a', 'fast').catalogs] };
    const running = resolver.resolveInSlices(input);
    await expect(running).rejects.toThrow('catalog olm/community is listed twice');
  });
});

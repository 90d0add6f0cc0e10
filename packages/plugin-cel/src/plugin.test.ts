import { boot, constraintEvaluators } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { celPlugin, createCelPlugin } from './plugin.js';

describe('celPlugin', () => {
  it('boots and contributes the cel evaluator to constraintEvaluators', async () => {
    const kernel = await boot({ plugins: [celPlugin] });
    try {
      const evaluators = kernel.get(constraintEvaluators);
      const evaluator = evaluators.get('cel');
      expect(evaluator?.kind).toBe('cel');
      expect(kernel.plugins.map((plugin) => plugin.id)).toEqual(['plugin-cel']);
    } finally {
      await kernel.stop();
    }
  });

  it('passes options through createCelPlugin', async () => {
    const kernel = await boot({ plugins: [createCelPlugin({ limits: { maxRuleBytes: 8 } })] });
    try {
      const evaluator = kernel.get(constraintEvaluators).get('cel');
      expect(() => evaluator?.compile({ rule: 'true || false' }, { compile: () => ({ test: () => true, describe: () => '' }) })).toThrow(
        /maxRuleBytes/,
      );
    } finally {
      await kernel.stop();
    }
  });

  it('conflicts with a second cel provider at boot, naming both', async () => {
    const twin = createCelPlugin();
    await expect(boot({ plugins: [celPlugin, { ...twin, id: 'plugin-cel-twin' }] })).rejects.toThrow(/plugin-cel/);
  });
});

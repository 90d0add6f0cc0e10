import { constraintEvaluators, contribute, definePlugin, satBackend, type ExtensionReader } from '@olm/core';
import { builtInConstraintEvaluators } from './dependency-predicates.js';
import { createResolver, type Resolver, type ResolverOptions } from './resolver.js';

/**
 * Wires the resolver into the kernel: contributes the built-in `olm.constraint` kinds (gvk, package,
 * all, any, not) and requires a SAT backend. Consumers build a resolver from the booted kernel with
 * `resolverFromKernel(kernel)`; it uses whichever SAT backend and constraint evaluators were booted.
 */
export const resolverPlugin = definePlugin({
  id: 'resolver',
  version: '0.1.0',
  // Not used here, but a resolver without one cannot run: a distribution that boots none fails at boot.
  deps: { satBackend },
  provides: [constraintEvaluators],
  init: () => ({ provide: builtInConstraintEvaluators.map((evaluator) => contribute(constraintEvaluators, evaluator)) }),
});

/** A resolver over the kernel's booted SAT backend and constraint evaluators (`limits`: the resolver's defaults otherwise). */
export function resolverFromKernel(kernel: ExtensionReader, options: Pick<ResolverOptions, 'limits'> = {}): Resolver {
  return createResolver({ satBackend: kernel.get(satBackend), constraintEvaluators: kernel.get(constraintEvaluators), ...options });
}

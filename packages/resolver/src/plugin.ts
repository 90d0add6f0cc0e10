import { constraintEvaluators, contribute, definePlugin, namespaceResolver, satBackend, type ExtensionReader, type Plugin } from '@olm/core';
import { builtInConstraintEvaluators } from './dependency-predicates.js';
import type { ResolutionLimits } from './resolution-budget.js';
import { createResolver, type Resolver, type ResolverOptions } from './resolver.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export interface ResolverPluginOptions {
  /** How much work one namespace's resolution may do (`defaultResolutionLimits` for what is not given). */
  readonly limits?: Partial<ResolutionLimits>;
}

/**
 * Wires the resolver into the kernel: contributes the built-in `olm.constraint` kinds (gvk, package,
 * all, any, not) and the `namespaceResolver` the catalog operator resolves with, built from the booted
 * SAT backend and every constraint evaluator (the built-in kinds and those other plugins contribute).
 */
export function createResolverPlugin(options: ResolverPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'resolver',
    version: packageJson.version,
    // Consuming a point it provides itself gives the other plugins' evaluators (CEL, ...).
    deps: { satBackend, constraintEvaluators },
    provides: [constraintEvaluators, namespaceResolver],
    init: (deps) => ({
      provide: [
        ...builtInConstraintEvaluators.map((evaluator) => contribute(constraintEvaluators, evaluator)),
        contribute(
          namespaceResolver,
          createResolver({
            satBackend: deps.satBackend,
            constraintEvaluators: [...builtInConstraintEvaluators, ...deps.constraintEvaluators.values()],
            ...(options.limits ? { limits: options.limits } : {}),
          }),
        ),
      ],
    }),
  });
}

/** The plugin with the resolver's default limits. */
export const resolverPlugin = createResolverPlugin();

/** A resolver over the kernel's booted SAT backend and constraint evaluators (`limits`: the resolver's defaults otherwise). */
export function resolverFromKernel(kernel: ExtensionReader, options: Pick<ResolverOptions, 'limits'> = {}): Resolver {
  return createResolver({ satBackend: kernel.get(satBackend), constraintEvaluators: kernel.get(constraintEvaluators), ...options });
}

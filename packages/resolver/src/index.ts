export * from './errors.js';
export * from './predicates.js';
export * from './dependency-predicates.js';
export * from './sort-channel.js';
export * from './solver.js';
export * from './resolver.js';
export { defaultResolutionLimits, resolveResolutionLimits, type ResolutionLimits } from './resolution-budget.js';
export * from './plugin.js';
export * from './scenario.js';

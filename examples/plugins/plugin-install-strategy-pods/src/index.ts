export { createPodInstallStrategyPlugin } from './plugin.js';
export { createPodInstallStrategy, templateHashAnnotation, type PodInstallStrategyOptions } from './pod-strategy.js';

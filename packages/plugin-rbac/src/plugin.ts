import { contribute, definePlugin, rbacGenerator } from '@olm/core';
import { createRbacGenerator } from './generator.js';

/**
 * Provides the `rbacGenerator` extension point with upstream OLM's RBAC (names, labels, aggregation).
 * A platform team swaps it by booting another plugin that provides `rbacGenerator` instead.
 */
export const rbacPlugin = definePlugin({
  id: 'plugin-rbac',
  version: '0.1.0',
  provides: [rbacGenerator],
  init: () => ({ provide: [contribute(rbacGenerator, createRbacGenerator())] }),
});

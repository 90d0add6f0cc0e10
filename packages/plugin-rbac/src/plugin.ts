import { contribute, definePlugin, rbacGenerator } from '@olm/core';
import { createRbacGenerator } from './generator.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

/**
 * Provides the `rbacGenerator` extension point with upstream OLM's RBAC (names, labels, aggregation).
 * A platform team swaps it by booting another plugin that provides `rbacGenerator` instead.
 */
export const rbacPlugin = definePlugin({
  id: 'plugin-rbac',
  version: packageJson.version,
  provides: [rbacGenerator],
  init: () => ({ provide: [contribute(rbacGenerator, createRbacGenerator())] }),
});

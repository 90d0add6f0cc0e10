import { Kinds } from '@olm/api';
import type { RenderedBundle } from '@olm/bundle-render';
import type { KubeClient } from '@olm/core';
import { checkCrdSchemaUpgrade, formatCrdSchemaViolations, isCrdView, SchemaDiffBudget, type CrdSchemaUpgradeCheck } from '@olm/crd-upgrade-safety';

/**
 * v1's CRD upgrade safety preflight: each CRD of the rendered bundle against the live one of that name
 * (a new CRD breaks nothing), one schema-diff budget for the bundle. Returns upstream's message naming
 * the CRD, the version, the field and the rule, or undefined when nothing blocks.
 */
export async function crdUpgradeViolations(client: KubeClient, rendered: RenderedBundle): Promise<string | undefined> {
  const budget = new SchemaDiffBudget();
  const checks: CrdSchemaUpgradeCheck[] = [];
  for (const phase of rendered.phases) {
    for (const next of phase.objects) {
      if (next.kind !== 'CustomResourceDefinition' || !isCrdView(next)) continue;
      const live = await client.find({ ...Kinds.customResourceDefinition, name: next.metadata.name });
      if (live && isCrdView(live)) checks.push(checkCrdSchemaUpgrade(live, next, { budget }));
    }
  }
  return formatCrdSchemaViolations(checks);
}

import { boot, rbacGenerator } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { makeCsv, makeOperatorGroup } from '../test/support.js';
import { generateCsvPermissions } from './csv-permissions.js';
import { rbacPlugin } from './plugin.js';

describe('rbacPlugin', () => {
  it('provides the rbacGenerator extension point', async () => {
    const kernel = await boot({ plugins: [rbacPlugin] });
    try {
      const generator = kernel.get(rbacGenerator);
      const csv = makeCsv({ permissions: [{ serviceAccountName: 'sa', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }] });
      expect(generator.name).toBe('upstream');
      expect(generator.permissionsForCsv({ csv })).toEqual(generateCsvPermissions(csv));
      expect(generator.operatorGroupClusterRoles({ operatorGroup: makeOperatorGroup({}) })).toHaveLength(3);
      expect(generator.permissionsForOperatorGroup({ csv, operatorGroup: makeOperatorGroup({ namespaces: [''] }) })).toHaveLength(2);
      expect(generator.providedApiClusterRoles({ csv })).toEqual([]);
      const role = generator.permissionsForCsv({ csv })[1] as unknown as { metadata: { labels: Record<string, string> }; rules: never[] };
      expect(generator.policyRulesHash(role.rules)).toBe(role.metadata.labels['olm.permissions.hash']);
    } finally {
      await kernel.stop();
    }
  });
});

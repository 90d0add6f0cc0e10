import { boot, propertyTypes } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { registryPlugin } from './plugin.js';

describe('registryPlugin', () => {
  it('contributes every built-in property type, keyed by type', async () => {
    const kernel = await boot({ plugins: [registryPlugin] });
    try {
      const types = kernel.get(propertyTypes);
      expect([...types.keys()].sort()).toEqual([
        'olm.bundle.object',
        'olm.channel',
        'olm.constraint',
        'olm.csv.metadata',
        'olm.deprecated',
        'olm.gvk',
        'olm.gvk.required',
        'olm.label',
        'olm.maxOpenShiftVersion',
        'olm.package',
        'olm.package.required',
      ]);
      expect(types.get('olm.gvk')?.parse({ group: 'g', kind: 'K', version: 'v1' })).toEqual({ group: 'g', kind: 'K', version: 'v1' });
      expect(() => types.get('olm.package')?.parse({ packageName: 1 })).toThrow(
        'json: cannot unmarshal number into Go struct field Package.packageName of type string',
      );
    } finally {
      await kernel.stop();
    }
  });
});

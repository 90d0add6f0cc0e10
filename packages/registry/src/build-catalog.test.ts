import type { PropertyType } from '@olm/core';
import { hasErrorCode } from '@olm/core';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildCatalog, loadCatalog } from './build-catalog.js';
import { dns1123LabelErrors, releaseError } from './convert-to-model.js';
import { loadDeclarativeConfig } from './load-declarative-config.js';

const catalogText = `---
schema: olm.package
name: foo
defaultChannel: stable
icon: {base64data: aGVsbG8=, mediatype: image/png}
---
schema: olm.channel
package: foo
name: stable
entries:
  - name: foo.v1.0.0
  - name: foo.v1.1.0
    replaces: foo.v1.0.0
    skipRange: '>=1.0.0 <1.1.0'
---
schema: olm.channel
package: foo
name: candidate
entries:
  - name: foo.v1.1.0
${['1.0.0', '1.1.0']
  .map(
    (version) => `---
schema: olm.bundle
package: foo
name: foo.v${version}
image: quay.io/example/foo:v${version}
properties:
  - type: olm.package
    value: {packageName: foo, version: ${version}}
  - type: example.com/tier
    value: ${version === '1.0.0' ? 'gold' : '7'}
  - type: olm.maxOpenShiftVersion
    value: ${version === '1.0.0' ? '"4.19"' : 'not-a-version'}
`,
  )
  .join('')}`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'olm-build-'));
  await writeFile(join(dir, 'catalog.yaml'), catalogText);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const tier: PropertyType<string> = {
  type: 'example.com/tier',
  parse(value) {
    if (typeof value !== 'string') throw new Error('tier must be a string');
    return value;
  },
};

describe('buildCatalog', () => {
  it('builds sorted maps implementing CatalogContent, with each bundle’s channels', async () => {
    const { catalog, errors, warnings } = buildCatalog(await loadDeclarativeConfig(dir));
    expect(errors).toEqual([]);
    expect([...(catalog.package('foo')?.channels.keys() ?? [])]).toEqual(['candidate', 'stable']);
    expect(catalog.bundle('foo', 'foo.v1.1.0')).toMatchObject({ version: '1.1.0', image: 'quay.io/example/foo:v1.1.0', channels: ['candidate', 'stable'] });
    expect(catalog.channel('foo', 'stable')?.entries[1]).toEqual({ name: 'foo.v1.1.0', replaces: 'foo.v1.0.0', skipRange: '>=1.0.0 <1.1.0' });
    // opm accepts any JSON for olm.maxOpenShiftVersion; OLM would not: a warning.
    expect(warnings.map((warning) => warning.message)).toEqual([
      'parse properties for bundle "foo.v1.1.0": parse property[2] of type "olm.maxOpenShiftVersion": Short version cannot contain PreRelease/Build meta data',
    ]);
  });

  it('applies a platform’s extra property types: their errors make the catalog invalid', async () => {
    const config = await loadDeclarativeConfig(dir);
    const { catalog, errors } = buildCatalog(config, { propertyTypes: [tier] });
    expect(errors.map((error) => [error.rule, error.message])).toEqual([
      ['invalid-property', 'parse properties for bundle "foo.v1.1.0": parse property[1] of type "example.com/tier": tier must be a string'],
    ]);
    expect(catalog.properties(catalog.bundle('foo', 'foo.v1.0.0') ?? { name: '', package: '', image: '', version: '', properties: [] }, 'example.com/tier')).toEqual(['gold']);
    const error = await loadCatalog(dir, { propertyTypes: new Map([[tier.type, tier]]) }).catch((thrown: unknown) => thrown);
    expect(hasErrorCode(error, 'OLM_REGISTRY_INVALID')).toBe(true);
    expect((error as Error).message).toContain('catalog.yaml:');
    const lenient = await loadCatalog(dir, { propertyTypes: [tier], allowInvalid: true });
    expect(lenient.bundle('foo', 'foo.v1.1.0')).toBeUndefined();
    expect(lenient.bundle('foo', 'foo.v1.0.0')).toBeDefined();
  });
});

describe('name and release checks', () => {
  it('dns1123LabelErrors gives k8s messages', () => {
    expect(dns1123LabelErrors('etcd')).toEqual([]);
    expect(dns1123LabelErrors('foo.bar')).toEqual(['must not contain dots']);
    expect(dns1123LabelErrors('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(dns1123LabelErrors('-x')[0]).toMatch(/^a lowercase RFC 1123 label must consist of/);
  });

  it('releaseError follows model.NewRelease', () => {
    expect(releaseError('')).toBeUndefined();
    expect(releaseError('alpha.1')).toBeUndefined();
    expect(releaseError('a'.repeat(21))).toBe(`invalid release "${'a'.repeat(21)}": exceeds maximum length of 20 characters`);
    expect(releaseError('01.x_y')).toBe('invalid release "01.x_y": segment 0: Numeric PreRelease version must not contain leading zeroes "01"\nsegment 1: Invalid character(s) found in prerelease "x_y"');
    expect(releaseError('a..b')).toBe('invalid release "a..b": segment 1: Prerelease is empty');
  });
});

import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { ResolverErrorCodes } from './errors.js';
import { catalogFromBlobs, parseScenario, scenarioToInput } from './scenario.js';

function invalidMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(hasErrorCode(error, ResolverErrorCodes.invalidInput)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected invalid input');
}

describe('scenario files', () => {
  it('names the file and the field of each problem', () => {
    expect(invalidMessage(() => parseScenario('catalogs: []', '/s.yaml'))).toBe('/s.yaml: namespace: is required');
    expect(invalidMessage(() => parseScenario('namespace: ns\ncatalogs: [{name: c, namespace: olm}]', '/s.yaml'))).toBe(
      '/s.yaml: catalogs[0]: give exactly one of "path" or "content"',
    );
    expect(invalidMessage(() => parseScenario('namespace: ns\ncatalogs: [{name: c, namespace: olm, content: [], priority: high}]', '/s.yaml'))).toBe(
      '/s.yaml: catalogs[0].priority: must be an integer',
    );
    expect(invalidMessage(() => parseScenario('namespace: ns\nsubscriptions: [{name: s, package: p, source: c}]', '/s.yaml'))).toBe(
      '/s.yaml: subscriptions[0].sourceNamespace: is required',
    );
    expect(invalidMessage(() => parseScenario('namespace: [', '/s.yaml'))).toMatch(/^\/s\.yaml: not valid YAML: /);
  });

  it('refuses unknown fields (a misspelt key would silently change the answer) and names listed twice', () => {
    expect(invalidMessage(() => parseScenario('namespace: ns\nsubscriptons: []', '/s.yaml'))).toBe(
      '/s.yaml: subscriptons: unknown field; the known fields are namespace, failForward, catalogs, installed, subscriptions',
    );
    expect(invalidMessage(() => parseScenario('namespace: ns\nsubscriptions: [{name: s, pakage: p, source: c, sourceNamespace: olm}]', '/s.yaml'))).toBe(
      '/s.yaml: subscriptions[0].pakage: unknown field; the known fields are name, package, channel, source, sourceNamespace, startingCSV, installedCSV',
    );
    expect(invalidMessage(() => parseScenario('namespace: ns\ninstalled: [{name: a.v1, provides: []}]', '/s.yaml'))).toMatch(
      /^\/s\.yaml: installed\[0\]\.provides: unknown field; the known fields are name, properties, providedAPIs/,
    );
    expect(invalidMessage(() => parseScenario('namespace: ns\ncatalogs: [{name: c, namespace: olm, content: [], prio: 1}]', '/s.yaml'))).toMatch(
      /^\/s\.yaml: catalogs\[0\]\.prio: unknown field/,
    );
    expect(invalidMessage(() => parseScenario('namespace: ns\ninstalled: [{name: a.v1}, {name: b.v1}, {name: a.v1}]', '/s.yaml'))).toBe(
      '/s.yaml: installed[2].name: installed operator "a.v1" is listed twice (also installed[0])',
    );
    expect(
      invalidMessage(() =>
        parseScenario('namespace: ns\nsubscriptions: [{name: s, package: p, source: c, sourceNamespace: olm}, {name: s, package: q, source: c, sourceNamespace: olm}]', '/s.yaml'),
      ),
    ).toBe('/s.yaml: subscriptions[1].name: subscription "s" is listed twice (also subscriptions[0])');
    expect(invalidMessage(() => parseScenario('namespace: ns\ncatalogs: [{name: c, namespace: olm, content: []}, {name: c, namespace: olm, content: []}]', '/s.yaml'))).toBe(
      '/s.yaml: catalogs[1]: catalog "olm/c" is listed twice (also catalogs[0])',
    );
  });

  it('resolves catalog paths against the scenario file', () => {
    const scenario = parseScenario('namespace: ns\ncatalogs: [{name: c, namespace: olm, path: ./catalog}]', '/work/cases/s.yaml');
    expect(scenario.catalogs[0]!.path).toBe('/work/cases/catalog');
  });

  it('builds catalog content from FBC blobs and the shorthands', () => {
    const content = catalogFromBlobs(
      [
        { schema: 'olm.package', name: 'a', defaultChannel: 'stable' },
        { schema: 'olm.channel', package: 'a', name: 'stable', entries: [{ name: 'a.v1' }, { name: 'a.v2', replaces: 'a.v1', skipRange: '<2.0.0' }] },
        { schema: 'olm.bundle', name: 'a.v1', package: 'a', properties: [{ type: 'olm.package', value: { packageName: 'a', version: '1.0.0' } }] },
        {
          schema: 'olm.bundle',
          name: 'a.v2',
          package: 'a',
          version: '2.0.0',
          provides: [{ group: 'g', version: 'v1', kind: 'K' }],
          dependencies: [{ type: 'olm.package', value: { packageName: 'b', version: '1.0.1' } }],
        },
      ],
      'inline',
    );
    const pkg = content.packages.get('a')!;
    expect(pkg.defaultChannel).toBe('stable');
    expect(pkg.channels.get('stable')!.entries[1]).toEqual({ name: 'a.v2', replaces: 'a.v1', skipRange: '<2.0.0' });
    expect(pkg.bundles.get('a.v1')!.version).toBe('1.0.0');
    expect(pkg.bundles.get('a.v2')!.properties).toEqual([
      { type: 'olm.package', value: { packageName: 'a', version: '2.0.0' } },
      { type: 'olm.gvk', value: { group: 'g', version: 'v1', kind: 'K' } },
      { type: 'olm.package.required', value: { packageName: 'b', versionRange: '1.0.1' } },
    ]);
  });

  it('takes an installed operator\'s properties from the catalog bundle of the same name', async () => {
    const scenario = parseScenario(
      [
        'namespace: ns',
        'catalogs:',
        '  - name: c',
        '    namespace: olm',
        '    content:',
        '      - {schema: olm.package, name: a, defaultChannel: stable}',
        '      - {schema: olm.channel, package: a, name: stable, entries: [{name: a.v1}, {name: a.v2, replaces: a.v1}]}',
        '      - {schema: olm.bundle, name: a.v1, package: a, version: 1.0.0}',
        '      - {schema: olm.bundle, name: a.v2, package: a, version: 2.0.0}',
        'installed: [{name: a.v2}, {name: other, properties: []}]',
      ].join('\n'),
      '/s.yaml',
    );
    const input = await scenarioToInput(scenario);
    expect(input.installed).toEqual([
      { name: 'a.v2', properties: [{ type: 'olm.package', value: { packageName: 'a', version: '2.0.0' } }], version: '2.0.0', replaces: 'a.v1' },
      { name: 'other', properties: [] },
    ]);
  });
});

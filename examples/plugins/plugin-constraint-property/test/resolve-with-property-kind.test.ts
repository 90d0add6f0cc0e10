import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lazyPlugin, olmDistribution, resolutionPlugins, runDistribution, type Distribution } from '@olm/olm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import pluginConstraintPropertyPackage from '../package.json' with { type: 'json' };

// apps/olm's resolution plugins plus this package: the one added line a distribution needs.
const extended: Distribution = {
  ...olmDistribution,
  resolutionPlugins: [
    ...resolutionPlugins,
    lazyPlugin('plugin-constraint-property', pluginConstraintPropertyPackage.version, async () => (await import('@olm/plugin-constraint-property')).propertyConstraintPlugin),
  ],
};

const directory = mkdtempSync(join(tmpdir(), 'olm-property-constraint-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A scenario: `app` needs, through the new kind, a bundle carrying `acme.certified`; `db` carries `dbProperties`. */
function scenario(name: string, dbProperties: string): string {
  const file = join(directory, `${name}.yaml`);
  writeFileSync(
    file,
    `namespace: operators
catalogs:
  - name: community
    namespace: olm
    content:
      - {schema: olm.package, name: app, defaultChannel: stable}
      - {schema: olm.channel, package: app, name: stable, entries: [{name: app.v1}]}
      - schema: olm.bundle
        name: app.v1
        package: app
        properties:
          - {type: olm.package, value: {packageName: app, version: 1.0.0}}
          - {type: olm.constraint, value: {failureMessage: needs a certified build, property: {type: acme.certified, value: {by: acme}}}}
      - {schema: olm.package, name: db, defaultChannel: stable}
      - {schema: olm.channel, package: db, name: stable, entries: [{name: db.v1}]}
      - schema: olm.bundle
        name: db.v1
        package: db
        properties: [{type: olm.package, value: {packageName: db, version: 1.0.0}}${dbProperties}]
subscriptions:
  - {name: app, package: app, channel: stable, source: community, sourceNamespace: olm}
`,
  );
  return file;
}

async function resolve(distribution: Distribution, file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  const previousExitCode = process.exitCode;
  try {
    return { code: await runDistribution(distribution, ['resolve', '-f', file, '-o', 'json']), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = previousExitCode;
  }
}

describe('a new olm.constraint kind from one package and one line in the plugin list', () => {
  it('resolves when a bundle carries the property (key order of the value does not matter)', async () => {
    const run = await resolve(extended, scenario('satisfied', ', {type: acme.certified, value: {by: acme}}'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const outcome = JSON.parse(run.stdout) as { status: string; operators: Array<{ name: string }> };
    expect(outcome.status).toBe('Resolved');
    expect(outcome.operators.map((operator) => operator.name).sort()).toEqual(['app.v1', 'db.v1']);
  });

  it('is unsatisfiable, naming the predicate, when no bundle carries it with that value', async () => {
    const run = await resolve(extended, scenario('unsatisfied', ', {type: acme.certified, value: {by: someone-else}}'));
    expect(run.code).toBe(1);
    const outcome = JSON.parse(run.stdout) as { status: string; message: string };
    expect(outcome.status).toBe('Unsatisfiable');
    expect(outcome.message).toContain('with property: acme.certified={"by":"acme"}');
  });

  it('without the line, the distribution does not know the kind (as upstream: an unknown field)', async () => {
    const run = await resolve(olmDistribution, scenario('not-booted', ', {type: acme.certified, value: {by: acme}}'));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('parse olm.constraint: json: unknown field "property"');
  });

  it('rejects a malformed constraint with what to write instead', async () => {
    const file = scenario('malformed', '');
    writeFileSync(file, readFileSync(file, 'utf8').replace('property: {type: acme.certified, value: {by: acme}}', 'property: {name: acme.certified}'));
    const run = await resolve(extended, file);
    expect(run.code).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain('unknown field(s) "name": give {"type": "<property type>"} and optionally "value"');
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalog } from '@olm/registry';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const realCatalog = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));

function scenarioFile(text: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'olm-resolve-'));
  const file = join(directory, 'scenario.yaml');
  writeFileSync(file, text);
  return file;
}

const inlineCatalog = `
namespace: operators
catalogs:
  - name: community
    namespace: olm
    content:
      - {schema: olm.package, name: app, defaultChannel: stable}
      - {schema: olm.channel, package: app, name: stable, entries: [{name: app.v1}, {name: app.v2, replaces: app.v1}]}
      - {schema: olm.bundle, name: app.v1, package: app, version: 1.0.0, requires: [{group: db.io, version: v1, kind: Database}]}
      - {schema: olm.bundle, name: app.v2, package: app, version: 2.0.0, requires: [{group: db.io, version: v1, kind: Database}]}
      - {schema: olm.package, name: db, defaultChannel: stable}
      - {schema: olm.channel, package: db, name: stable, entries: [{name: db.v1}]}
      - {schema: olm.bundle, name: db.v1, package: db, version: 1.0.0, provides: [{group: db.io, version: v1, kind: Database}]}
`;

describe('olm resolve', () => {
  it('prints the operators a namespace ends up with as JSON and exits 0', async () => {
    const file = scenarioFile(`${inlineCatalog}
installed:
  - name: app.v1
subscriptions:
  - {name: app, package: app, channel: stable, source: community, sourceNamespace: olm, installedCSV: app.v1}
`);
    const run = await runCliCaptured(['resolve', '-f', file, '-o', 'json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      status: 'Resolved',
      operators: [
        { name: 'app.v2', package: 'app', channel: 'stable', catalog: { name: 'community', namespace: 'olm' }, replaces: 'app.v1', subscription: { name: 'app', isNew: false }, existing: false },
        { name: 'db.v1', package: 'db', channel: 'stable', catalog: { name: 'community', namespace: 'olm' }, replaces: null, subscription: { name: 'db-stable-community-olm', isNew: true }, existing: false },
      ],
    });
  });

  it('explains each choice in text output, and adds solver statistics on request', async () => {
    const file = scenarioFile(`${inlineCatalog}
subscriptions:
  - {name: app, package: app, channel: stable, source: community, sourceNamespace: olm}
`);
    const text = await runCliCaptured(['resolve', '-f', file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('install db.v1 (package db, olm/community, channel stable)');
    expect(text.stdout).toContain('why: bundle app.v2 requires an operator providing an API with group: db.io, version: v1, kind: Database: option 1 of 1');
    const yaml = await runCliCaptured(['resolve', '-f', file, '-o', 'yaml', '--stats']);
    expect(yaml.stdout).toMatch(/^status: Resolved$/m);
    expect(yaml.stdout).toMatch(/solverCalls: \d+/);
  });

  it('exits 1 with the conflicting constraints when unsatisfiable', async () => {
    const file = scenarioFile(`${inlineCatalog}
installed:
  - name: other-db.v1
    properties: [{type: olm.gvk, value: {group: db.io, version: v1, kind: Database}}, {type: olm.package, value: {packageName: other-db, version: 1.0.0}}]
subscriptions:
  - {name: db, package: db, channel: stable, source: community, sourceNamespace: olm}
`);
    const run = await runCliCaptured(['resolve', '-f', file, '-o', 'json']);
    expect(run.code).toBe(1);
    const outcome = JSON.parse(run.stdout) as { status: string; message: string; constraints: unknown[] };
    expect(outcome.status).toBe('Unsatisfiable');
    expect(outcome.message).toBe(
      'constraints not satisfiable: @existing/operators//other-db.v1 and community/olm/stable/db.v1 provide Database (db.io/v1), clusterserviceversion other-db.v1 exists and is not referenced by a subscription, subscription db exists, subscription db requires community/olm/stable/db.v1',
    );
    expect(outcome.constraints).toHaveLength(4);
  });

  it('exits 2 naming the file and field of invalid input', async () => {
    const file = scenarioFile('namespace: operators\nsubscriptions:\n  - {name: x, channel: stable, source: c, sourceNamespace: olm}\n');
    const run = await runCliCaptured(['resolve', '-f', file, '-o', 'json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: subscriptions[0].package: is required`);
    const missing = await runCliCaptured(['resolve', '-f', join(tmpdir(), 'no-such-scenario.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no-such-scenario.yaml: cannot read the scenario');
    const format = await runCliCaptured(['resolve', '-f', file, '-o', 'xml']);
    expect(format.code).toBe(2);
    // A misspelt key would silently resolve something else: it is refused, naming the known fields.
    const typo = scenarioFile('namespace: operators\nsubscription:\n  - {name: x, package: p, source: c, sourceNamespace: olm}\n');
    const refused = await runCliCaptured(['resolve', '-f', typo, '-o', 'json']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`${typo}: subscription: unknown field; the known fields are namespace, failForward, catalogs, installed, subscriptions`);
  });

  it('exits 2 with upstream\'s message when a catalog bundle carries a broken olm.constraint', async () => {
    const file = scenarioFile(`namespace: operators
catalogs:
  - name: community
    namespace: olm
    content:
      - {schema: olm.package, name: app, defaultChannel: stable}
      - {schema: olm.channel, package: app, name: stable, entries: [{name: app.v1}]}
      - {schema: olm.bundle, name: app.v1, package: app, version: 1.0.0, properties: [{type: olm.constraint, value: {failureMessage: x, packge: {packageName: db, versionRange: ">=1.0.0"}}}]}
subscriptions:
  - {name: app, package: app, channel: stable, source: community, sourceNamespace: olm}
`);
    const run = await runCliCaptured(['resolve', '-f', file, '-o', 'text']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('Invalid input: parse olm.constraint: json: unknown field "packge"\n');
    expect(run.stderr).toContain(`${file}: parse olm.constraint: json: unknown field "packge"`);
  });

  it('resolves a package of the real certified catalog to the head of its default channel', async () => {
    const catalog = await loadCatalog(realCatalog);
    const pkg = catalog.packages.get('cloud-native-postgresql')!;
    const channel = pkg.channels.get(pkg.defaultChannel)!;
    const replaced = new Set(channel.entries.flatMap((entry) => [entry.replaces ?? '', ...(entry.skips ?? [])]));
    const heads = channel.entries.filter((entry) => !replaced.has(entry.name)).map((entry) => entry.name);
    expect(heads).toHaveLength(1);
    const file = scenarioFile(`namespace: operators
catalogs:
  - {name: certified-operators, namespace: openshift-marketplace, path: ${JSON.stringify(realCatalog)}}
subscriptions:
  - {name: cnpg, package: cloud-native-postgresql, channel: ${JSON.stringify(pkg.defaultChannel)}, source: certified-operators, sourceNamespace: openshift-marketplace}
`);
    const run = await runCliCaptured(['resolve', '-f', file, '-o', 'json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const outcome = JSON.parse(run.stdout) as { operators: Array<{ name: string; subscription: { name: string } }> };
    expect(outcome.operators.find((operator) => operator.subscription.name === 'cnpg')?.name).toBe(heads[0]);
  });

  it('fails a resolution past --resolution-budget with the bundle and rule named, exit 1; refuses a budget of 0', async () => {
    const file = scenarioFile(`${inlineCatalog}
      - {schema: olm.package, name: picky, defaultChannel: stable}
      - {schema: olm.channel, package: picky, name: stable, entries: [{name: picky.v1}]}
      - schema: olm.bundle
        name: picky.v1
        package: picky
        version: 1.0.0
        dependencies: [{type: olm.constraint, value: {failureMessage: needs a Database provider, cel: {rule: 'properties.exists(p, p.type == "olm.gvk" && p.value.kind == "Database")'}}}]
subscriptions:
  - {name: picky, package: picky, channel: stable, source: community, sourceNamespace: olm}
`);
    expect((await runCliCaptured(['resolve', '-f', file, '-o', 'json'])).code).toBe(0);
    const run = await runCliCaptured(['resolve', '-f', file, '--resolution-budget', '20']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: resolution stopped: evaluating constraints used up the budget of 20 units: bundle picky\.v1 \(catalogsource olm\/community\) spent \d+ of them on its constraint with constraint: "properties\.exists/);
    expect(run.stderr).toContain('and message: "needs a Database provider"; simplify or remove these constraints');
    const zero = await runCliCaptured(['resolve', '-f', file, '--resolution-budget', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("option '--resolution-budget <units>' argument '0' is invalid");
  });
});


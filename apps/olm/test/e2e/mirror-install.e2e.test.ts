import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerRegistryBinary, startDockerRegistry, type DockerRegistry } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { catalogSourceName } from '../../src/local-olm.js';
import { examplesDir, pushMultiArchImage } from '../example-images.js';
import { runCliCaptured } from '../run-cli.js';
import { getJson, operatorGroup, subscription, waitForSucceeded } from './kubectl-objects.js';
import { e2eUnavailableReason, startOlmUp, type OlmUp } from './olm-up.js';

const binary = dockerRegistryBinary();
const unavailable = e2eUnavailableReason() ?? (binary ? undefined : 'no docker-registry');

/** Runs the CLI in-process and insists that it succeeded; answers its stdout. */
async function olmOk(args: string[]): Promise<string> {
  const run = await runCliCaptured(args);
  expect(run.code, `olm ${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

describe.skipIf(unavailable)('installing from a mirrored catalog on olm up', () => {
  let source: DockerRegistry;
  let target: DockerRegistry;
  let up: OlmUp | undefined;
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'olm-e2e-mirror-'));
    source = await startDockerRegistry(binary!, join(root, 'source'));
    target = await startDockerRegistry(binary!, join(root, 'target'));
  }, 30_000);
  afterAll(async () => {
    await up?.stop();
    await source?.stop();
    await target?.stop();
  });

  it('builds a bundle and a catalog, mirrors them, and installs the operator from the mirror with the source registry gone', async () => {
    // the example acme-database bundle, its operator image one of the source registry
    const operator = `${source.host}/acme/acme-database-operator:v1.0.0`;
    await pushMultiArchImage(source.url, operator);
    const bundleDir = join(root, 'acme-database.v1.0.0');
    await cp(join(examplesDir, 'bundles', 'acme-database.v1.0.0'), bundleDir, { recursive: true });
    const csv = join(bundleDir, 'manifests', 'acme-database.clusterserviceversion.yaml');
    await writeFile(csv, (await readFile(csv, 'utf8')).replaceAll('registry.example.com/acme/acme-database-operator:v1.0.0', operator));
    const bundle = (await olmOk(['bundle', 'build', bundleDir, '--tag', `${source.host}/acme/acme-database-bundle:v1.0.0`])).trim();

    const template = join(root, 'template.yaml');
    const entries = [
      { schema: 'olm.package', name: 'acme-database', defaultChannel: 'stable' },
      { schema: 'olm.channel', package: 'acme-database', name: 'stable', entries: [{ name: 'acme-database.v1.0.0' }] },
      { schema: 'olm.bundle', image: bundle },
    ];
    await writeFile(template, stringify({ schema: 'olm.template.basic', entries }));
    await mkdir(join(root, 'catalog'));
    await writeFile(join(root, 'catalog', 'catalog.json'), await olmOk(['catalog', 'template', 'basic', template]));
    await olmOk(['catalog', 'build', join(root, 'catalog'), '--tag', `${source.host}/acme/catalog:v1`]);

    const applied = parseAllDocuments(await olmOk(['catalog', 'mirror', `${source.host}/acme/catalog:v1`, '--to', `${target.host}/mirror`])).map((document) => document.toJS());
    const catalogImage = applied[0].spec.image as string;
    await source.stop();

    // olm up serves catalog directories: the mirrored catalog image rendered into one
    const mirrored = join(root, 'mirrored-catalog');
    await mkdir(mirrored);
    await writeFile(join(mirrored, 'catalog.yaml'), await olmOk(['catalog', 'render', catalogImage, '-o', 'yaml']));
    up = await startOlmUp({ catalogs: [mirrored] });
    await up.kubectlOk(['apply', '-f', '-'], operatorGroup('mirror', ['mirror']) + '---' + subscription('mirror', 'acme-database', { source: catalogSourceName(mirrored) }));
    await waitForSucceeded(up, 'mirror', 'acme-database.v1.0.0', 120_000);

    // the bundle was unpacked from its copy at the target registry, and the operator's Deployment names the copied image
    const unpacked = ((await getJson(up, ['configmaps', '-n', 'olm']))?.items ?? []).map((item: { metadata: { annotations?: Record<string, string> } }) => item.metadata.annotations?.['operatorframework.io/bundle-image']);
    expect(unpacked).toContainEqual(expect.stringMatching(new RegExp(`^${target.host}/mirror/acme/acme-database-bundle@sha256:`)));
    const deployment = await getJson(up, ['deployment', 'acme-database-operator', '-n', 'mirror']);
    expect(deployment!.spec.template.spec.containers[0].image).toBe(operator);
    // ... which the printed mirror configuration maps to its copy (an ImageTagMirrorSet: the CSV names it by tag)
    expect(applied.find((document) => document.kind === 'ImageTagMirrorSet').spec.imageTagMirrors).toEqual([
      { source: `${source.host}/acme/acme-database-operator`, mirrors: [`${target.host}/mirror/acme/acme-database-operator`] },
    ]);
  }, 240_000);
});

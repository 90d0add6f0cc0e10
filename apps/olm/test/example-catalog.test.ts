import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateResource } from '@olm/api';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { exampleCatalogDirectory } from '../src/paths.js';
import { exampleBlobs } from './e2e/catalogs.js';
import { runCliCaptured } from './run-cli.js';

type Json = Record<string, any>;

const examplesDirectory = fileURLToPath(new URL('../../../examples', import.meta.url));
const packages = ['acme-backup', 'acme-database', 'acme-monitoring'];
const blobs = packages.flatMap((name) => exampleBlobs(name));
const bundles = blobs.filter((blob) => blob.schema === 'olm.bundle');
const channels = blobs.filter((blob) => blob.schema === 'olm.channel');
const properties = (bundle: Json, type: string) => (bundle.properties as Json[]).filter((property) => property.type === type).map((property) => property.value as Json);
const bundleObjects = (bundle: Json) => properties(bundle, 'olm.bundle.object').map((value) => JSON.parse(Buffer.from(value.data as string, 'base64').toString('utf8')) as Json);

describe('examples/catalog', () => {
  it('is valid: olm catalog validate exits 0', async () => {
    const run = await runCliCaptured(['catalog', 'validate', exampleCatalogDirectory]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('3 packages');
  });

  it.each(bundles.map((bundle) => [bundle.name as string, bundle]))('%s carries its full manifests: a CSV with deployments and permissions, and its CRDs', (name, bundle) => {
    const objects = bundleObjects(bundle);
    const csvs = objects.filter((object) => object.kind === 'ClusterServiceVersion');
    expect(csvs).toHaveLength(1);
    const csv = csvs[0]!;
    expect(csv.metadata.name).toBe(name);
    expect(validateResource(csv)).toEqual([]);
    expect(csv.spec.version).toBe(properties(bundle, 'olm.package')[0]!.version);
    expect(csv.spec.install.strategy).toBe('deployment');
    expect(csv.spec.install.spec.deployments.length).toBeGreaterThan(0);
    expect(csv.spec.install.spec.permissions.length).toBeGreaterThan(0);
    const crds = objects.filter((object) => object.kind === 'CustomResourceDefinition');
    for (const owned of csv.spec.customresourcedefinitions.owned as Json[]) {
      const crd = crds.find((each) => each.metadata.name === owned.name);
      expect(crd, `${name}: CRD ${owned.name}`).toBeDefined();
      expect((crd!.spec.versions as Json[]).some((version) => version.name === owned.version && version.served)).toBe(true);
      // What the CSV owns is what the bundle says it provides.
      expect(properties(bundle, 'olm.gvk')).toContainEqual({ group: crd!.spec.group, version: owned.version, kind: owned.kind });
    }
  });

  it('has a GVK dependency, a package dependency with a version range and a CEL constraint, each satisfiable', () => {
    const backup = bundles.find((bundle) => bundle.name === 'acme-backup.v0.2.0')!;
    const [required] = properties(backup, 'olm.gvk.required');
    expect(required).toEqual({ group: 'acme.example.com', version: 'v1', kind: 'Database' });
    expect(bundles.filter((bundle) => bundle.package === 'acme-database' && properties(bundle, 'olm.gvk').some((gvk) => gvk.kind === required!.kind && gvk.version === required!.version))).not.toEqual([]);

    const monitoring = bundles.find((bundle) => bundle.package === 'acme-monitoring')!;
    expect(properties(monitoring, 'olm.package.required')).toEqual([{ packageName: 'acme-database', versionRange: '>=1.1.0 <2.0.0' }]);
    const [constraint] = properties(monitoring, 'olm.constraint');
    expect(constraint!.cel.rule).toContain('acme.certified');
    expect(constraint!.failureMessage).toEqual(expect.any(String));
    expect(bundles.filter((bundle) => properties(bundle, 'acme.certified').length > 0).map((bundle) => bundle.name)).toContain('acme-database.v1.2.0');
  });

  it('has several channels and an upgrade graph with replaces, skips and skipRange, and a deprecated bundle', () => {
    expect(channels.filter((channel) => channel.package === 'acme-database').map((channel) => channel.name).sort()).toEqual(['fast', 'stable']);
    const entries = channels.flatMap((channel) => channel.entries as Json[]);
    const names = new Set(bundles.map((bundle) => bundle.name));
    for (const entry of entries) {
      expect(names.has(entry.name), entry.name).toBe(true);
      if (entry.replaces) expect(names.has(entry.replaces), entry.replaces).toBe(true);
      for (const skipped of entry.skips ?? []) expect(names.has(skipped), skipped).toBe(true);
    }
    expect(entries.filter((entry) => entry.replaces).length).toBeGreaterThan(1);
    expect(entries.find((entry) => entry.skips)).toMatchObject({ name: 'acme-database.v1.2.0', skips: ['acme-database.v1.1.1'] });
    expect(entries.find((entry) => entry.skipRange)).toMatchObject({ name: 'acme-database.v2.0.0', skipRange: '>=1.0.0 <2.0.0' });

    const deprecations = blobs.filter((blob) => blob.schema === 'olm.deprecations');
    const deprecated = deprecations.flatMap((blob) => blob.entries as Json[]).filter((entry) => entry.reference.schema === 'olm.bundle');
    expect(deprecated.map((entry) => entry.reference.name)).toEqual(['acme-database.v1.1.1']);
    expect(deprecated[0]!.message).toEqual(expect.any(String));
    expect(properties(bundles.find((bundle) => bundle.name === 'acme-database.v1.1.1')!, 'olm.deprecated')).toHaveLength(1);
  });

  it('resolves examples/resolve-monitoring.yaml: acme-monitoring brings acme-database 1.2.0, in its range and certified', async () => {
    const run = await runCliCaptured(['resolve', '-f', join(examplesDirectory, 'resolve-monitoring.yaml'), '-o', 'json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { status: string; operators: Json[] };
    expect(result.status).toBe('Resolved');
    expect(result.operators.map((operator) => operator.name).sort()).toEqual(['acme-database.v1.2.0', 'acme-monitoring.v0.1.0']);
  });
});

describe('examples/*.yaml', () => {
  it('has an OperatorGroup, a CatalogSource and Automatic and Manual Subscriptions that name what the catalog has', async () => {
    const objects: Json[] = [];
    for (const file of (await readdir(examplesDirectory)).filter((name) => name.endsWith('.yaml'))) {
      for (const document of parseAllDocuments(await readFile(join(examplesDirectory, file), 'utf8'))) {
        const object = document.toJS() as Json;
        if (object.kind) objects.push(object);
      }
    }
    const source = objects.find((object) => object.kind === 'CatalogSource')!;
    expect(source.spec.sourceType).toBe('grpc');
    expect(objects.find((object) => object.kind === 'OperatorGroup')).toBeDefined();
    const subscriptions = objects.filter((object) => object.kind === 'Subscription');
    expect(subscriptions.map((subscription) => subscription.spec.installPlanApproval).sort()).toEqual(['Automatic', 'Manual']);
    for (const subscription of subscriptions) {
      expect(subscription.spec).toMatchObject({ source: source.metadata.name, sourceNamespace: source.metadata.namespace });
      expect(channels.some((channel) => channel.package === subscription.spec.name && channel.name === subscription.spec.channel)).toBe(true);
      if (subscription.spec.startingCSV) expect(bundles.map((bundle) => bundle.name)).toContain(subscription.spec.startingCSV);
    }
  });
});

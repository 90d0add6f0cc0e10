import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkStructural, compileSchema, type CompiledSchema, type JSONSchemaProps } from '../src/index.js';

// Real CRDs and CSVs shipped as `olm.bundle.object`s in a certified catalog: schemas written by controller-gen
// and accepted by real clusters, with `alm-examples` written by the operator authors.
const catalogFile = new URL('../../../../shared/catalogs/certified-operators-v4.18/eda-openshift-operator/catalog.yaml', import.meta.url);

interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { group: string; names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: JSONSchemaProps } }[] };
}

function bundleObjects(): Manifest[] {
  const text = readFileSync(catalogFile, 'utf8');
  return [...text.matchAll(/type: olm\.bundle\.object\n\s+value:\n\s+data: (\S+)/g)].map(
    (match) => JSON.parse(Buffer.from(match[1] ?? '', 'base64').toString('utf8')) as Manifest,
  );
}

describe('real CRDs from the certified-operators catalog', () => {
  const objects = bundleObjects();
  const crds = objects.filter((object) => object.kind === 'CustomResourceDefinition');
  const csvs = objects.filter((object) => object.kind === 'ClusterServiceVersion');
  const compiled = new Map<string, CompiledSchema>();
  for (const crd of crds) {
    for (const version of crd.spec.versions) compiled.set(`${crd.spec.group}/${version.name}/${crd.spec.names.kind}`, compileSchema(version.schema.openAPIV3Schema));
  }

  it('finds CRDs and CSVs in the catalog', () => {
    expect(crds.length).toBeGreaterThanOrEqual(5);
    expect(csvs.length).toBeGreaterThanOrEqual(1);
  });

  it('judges every served schema structural, as the API server did', () => {
    for (const crd of crds) {
      crd.spec.versions.forEach((version, index) => {
        expect(checkStructural(version.schema.openAPIV3Schema, { path: `spec.versions[${index}].schema.openAPIV3Schema` }), crd.metadata.name).toEqual([]);
      });
    }
  });

  it('accepts the authors alm-examples without pruning anything', () => {
    let checked = 0;
    for (const csv of csvs) {
      const examples = JSON.parse(csv.metadata.annotations?.['alm-examples'] ?? '[]') as { apiVersion: string; kind: string }[];
      for (const example of examples) {
        const schema = compiled.get(`${example.apiVersion}/${example.kind}`);
        if (!schema) continue;
        const pruned = schema.prune(example);
        expect(pruned.unknownFields, `${csv.metadata.name} ${example.kind}`).toEqual([]);
        expect(schema.validate(schema.applyDefaults(pruned.object)), `${csv.metadata.name} ${example.kind}`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('finds errors and unknown fields after breaking an example', () => {
    const csv = csvs.find((candidate) => (candidate.metadata.annotations?.['alm-examples'] ?? '[]') !== '[]');
    const example = (JSON.parse(csv?.metadata.annotations?.['alm-examples'] ?? '[]') as Record<string, unknown>[])[0] ?? {};
    const schema = compiled.get(`${String(example.apiVersion)}/${String(example.kind)}`);
    expect(schema).toBeDefined();
    const broken = { ...example, spec: 'not an object', bogus: 1 };
    expect(schema?.prune(broken).unknownFields).toEqual(['bogus']);
    expect(schema?.validate(broken)).toContainEqual(expect.objectContaining({ field: 'spec', type: 'FieldValueTypeInvalid' }));
  });
});

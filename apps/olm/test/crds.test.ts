import { validateResource } from '@olm/api';
import { checkStructural } from '@olm/structural-schema';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCliCaptured } from './run-cli.js';

describe('olm crds', () => {
  it('prints every operators.coreos.com CRD and OLM v1\'s ClusterCatalog and ClusterExtension as multi-document YAML with structural schemas', async () => {
    const run = await runCliCaptured(['crds']);
    expect(run.code).toBe(0);
    const documents = parseAllDocuments(run.stdout).map((document) => document.toJS() as Record<string, any>);
    const names = documents.map((crd) => crd.metadata.name).sort();
    expect(names).toEqual([
      'catalogsources.operators.coreos.com',
      'clustercatalogs.olm.operatorframework.io',
      'clusterextensions.olm.operatorframework.io',
      'clusterserviceversions.operators.coreos.com',
      'installplans.operators.coreos.com',
      'olmconfigs.operators.coreos.com',
      'operatorconditions.operators.coreos.com',
      'operatorgroups.operators.coreos.com',
      'operators.operators.coreos.com',
      'subscriptions.operators.coreos.com',
    ]);
    for (const crd of documents) {
      expect(crd.kind).toBe('CustomResourceDefinition');
      for (const version of crd.spec.versions) {
        expect(checkStructural(version.schema.openAPIV3Schema)).toEqual([]);
      }
    }
  });

  it('prints them as a v1 List with -o json, and the same YAML with -o yaml', async () => {
    const json = await runCliCaptured(['crds', '-o', 'json']);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout) as { apiVersion: string; kind: string; items: Array<{ metadata: { name: string } }> };
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    const yaml = await runCliCaptured(['crds', '-o', 'yaml']);
    expect(parseAllDocuments(yaml.stdout).map((document) => (document.toJS() as { metadata: { name: string } }).metadata.name)).toEqual(list.items.map((crd) => crd.metadata.name));
    expect(yaml.stdout).toBe((await runCliCaptured(['crds'])).stdout);
  });

  it('validates the example manifests shipped with the project', async () => {
    const { readFile } = await import('node:fs/promises');
    for (const file of ['catalogsource.yaml', 'operatorgroup.yaml', 'subscription-automatic.yaml', 'subscription-manual.yaml']) {
      const text = await readFile(new URL(`../../../examples/${file}`, import.meta.url), 'utf8');
      for (const document of parseAllDocuments(text)) {
        const object = document.toJS() as { apiVersion: string };
        if (!object.apiVersion.startsWith('operators.coreos.com/')) continue;
        expect({ file, errors: validateResource(object) }).toEqual({ file, errors: [] });
      }
    }
  });
});

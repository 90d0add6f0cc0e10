import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { crds } from './crds.js';
import { renderCrdsYaml } from './render-crds-yaml.js';

describe('renderCrdsYaml', () => {
  it('renders every CRD as its own YAML document that parses back to the same data', () => {
    const text = renderCrdsYaml();
    const documents = parseAllDocuments(text);
    expect(documents).toHaveLength(crds.length);
    for (const document of documents) expect(document.errors).toEqual([]);
    expect(documents.map((document) => document.toJS())).toEqual(JSON.parse(JSON.stringify(crds)));
  });

  it('starts each document with --- and names the CRDs as kubectl expects', () => {
    const text = renderCrdsYaml();
    expect(text.startsWith('---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n')).toBe(true);
    expect(text.match(/^---$/gm)).toHaveLength(crds.length);
    expect(text).toContain('  name: subscriptions.operators.coreos.com\n');
    expect(text).toContain('x-kubernetes-preserve-unknown-fields: true');
  });

  it('renders a chosen subset', () => {
    const text = renderCrdsYaml(crds.filter((crd) => crd.spec.names.kind === 'OperatorGroup'));
    const [document] = parseAllDocuments(text);
    expect(document?.toJS()).toMatchObject({ spec: { names: { kind: 'OperatorGroup', shortNames: ['og'] } } });
  });
});

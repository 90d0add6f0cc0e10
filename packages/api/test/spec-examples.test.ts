import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { admitResource, validateResource } from '../src/index.js';
import { extractExamples } from './spec-examples.js';

const messages = (errors: { field: string; message: string }[]) => errors.map((error) => `${error.field}: ${error.message}`);

function load(text: string): unknown {
  const document = parseDocument(text);
  expect(document.errors.map((error) => error.message)).toEqual([]);
  return document.toJS();
}

describe('YAML examples embedded in the spec documents', () => {
  const ocp = extractExamples('olm-understanding-ocp43.txt');
  const openshift = extractExamples('dependency-resolution-openshift.md');
  const upstream = extractExamples('update-graph-and-dependency-resolution-upstream.txt');
  const at = (line: number) => {
    const example = ocp.find((candidate) => candidate.line === line);
    if (!example) throw new Error(`no example at olm-understanding-ocp43.txt:${line}; found ${ocp.map((e) => e.line).join(', ')}`);
    return example;
  };

  it('finds every operators.coreos.com manifest', () => {
    expect(ocp.map((example) => example.line)).toEqual([117, 163, 513, 524, 538, 574, 728]);
    expect(openshift.map((example) => example.line)).toEqual([271]);
    expect(upstream.map((example) => example.line)).toEqual([437]);
    expect(extractExamples('dependency-resolution-design.md')).toEqual([]);
  });

  it('rejects the partial "CSV with skipped release": a CSV needs spec.install', () => {
    // The document only shows the fields that matter for skipping; a real CSV also has an install strategy.
    expect(validateResource(load(at(117).text))).toEqual([{ field: 'spec.install', type: 'FieldValueRequired', message: 'Required value' }]);
  });

  it('rejects the partial "CSV with skipRange": it has no spec at all', () => {
    expect(validateResource(load(at(163).text))).toEqual([{ field: 'spec', type: 'FieldValueRequired', message: 'Required value' }]);
  });

  it('accepts the targetNamespaces OperatorGroup and defaults its upgrade strategy', () => {
    const result = admitResource(load(at(513).text));
    expect(result.errors).toEqual([]);
    expect(result.unknownFields).toEqual([]);
    expect(result.object).toMatchObject({ spec: { targetNamespaces: ['my-namespace'], upgradeStrategy: 'Default' } });
  });

  it('accepts the mis-indented selector OperatorGroup, but its spec is lost under metadata (so it selects all namespaces)', () => {
    // `spec:` is indented under `metadata:`; ObjectMeta has no such field, so the API server drops it
    // (kubectl reports `unknown field "metadata.spec"`) and the group becomes a global one.
    const result = admitResource(load(at(524).text));
    expect(result.errors).toEqual([]);
    expect(result.unknownFields).toEqual(['metadata.spec']);
    expect(result.object).toEqual({
      apiVersion: 'operators.coreos.com/v1',
      kind: 'OperatorGroup',
      metadata: { name: 'my-group', namespace: 'my-namespace' },
      spec: { upgradeStrategy: 'Default' },
    });
  });

  it('accepts the global OperatorGroup without spec (the spec default applies)', () => {
    const result = admitResource(load(at(538).text));
    expect(result.errors).toEqual([]);
    expect(result.object).toMatchObject({ spec: { upgradeStrategy: 'Default' } });
  });

  it('cannot parse the providedAPIs OperatorGroup (it has a literal "..." line), and once repaired finds an unknown field', () => {
    const { text } = at(574);
    expect(parseDocument(text).errors.map((error) => error.message)[0]).toMatch(/^Implicit map keys need to be followed by map values at line 8/);
    const repaired = text
      .split('\n')
      .filter((line) => line.trim() !== '...')
      .join('\n');
    const result = admitResource(load(repaired));
    // `spec.serviceAccount` is not an OperatorGroup field (the field is serviceAccountName).
    expect(result.unknownFields).toEqual(['spec.serviceAccount']);
    expect(result.errors).toEqual([]);
    expect(result.object).toMatchObject({ status: { lastUpdated: '2019-02-19T16:18:28Z', namespaces: ['local'] } });
  });

  it('accepts the static OperatorGroup', () => {
    expect(admitResource(load(at(728).text))).toMatchObject({ errors: [], unknownFields: [] });
  });

  it('rejects the OpenShift CatalogSource because it keeps the "<security_mode> 1" placeholder', () => {
    const [example] = openshift;
    expect(messages(validateResource(load(example?.text ?? '')))).toEqual([
      'spec.grpcPodConfig.securityContextConfig: Unsupported value: "<security_mode> 1": supported values: "legacy", "restricted"',
    ]);
    const fixed = (example?.text ?? '').replace('<security_mode> 1', 'restricted');
    expect(validateResource(load(fixed))).toEqual([]);
  });

  it('accepts the upstream CatalogSource (from an HTML export with escaped quotes)', () => {
    const [example] = upstream;
    const object = load(example?.text ?? '');
    expect(object).toMatchObject({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', spec: { priority: 100 } });
    expect(admitResource(object)).toMatchObject({ errors: [], unknownFields: [] });
  });
});

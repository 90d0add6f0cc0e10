import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigRequest } from '../kubeconfig-fetch.js';
import { e2eUnavailableReason, startOlmUp, type OlmUp } from './olm-up.js';

const unavailable = e2eUnavailableReason();
if (unavailable) console.warn(`end-to-end suite skipped: ${unavailable}`);

/** A CRD `gadgets.stored.example.com` serving `versions` (the last one is the storage version). */
function gadgetCrd(versions: readonly string[]): string {
  const schema = '{openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}';
  return `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.stored.example.com}
spec:
  group: stored.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
${versions.map((name, index) => `    - {name: ${name}, served: true, storage: ${index === versions.length - 1}, schema: ${schema}}`).join('\n')}
`;
}

// The storedVersions rules an admin meets when an operator's CRD drops an old version, with kubectl
// against olm up: the API server keeps status.storedVersions, refuses to drop a stored version, and
// takes it once the admin has migrated and edited the status (the documented procedure).
describe.skipIf(unavailable !== undefined)('end to end: CRD stored versions with kubectl against olm up', () => {
  let up: OlmUp;
  const storedVersions = async () => up.kubectlOk(['get', 'crd', 'gadgets.stored.example.com', '-o', 'jsonpath={.status.storedVersions}']);

  beforeAll(async () => {
    up = await startOlmUp();
  });
  afterAll(async () => {
    const code = await up?.stop();
    expect(code).toBe(0);
  });

  it('keeps storedVersions, refuses to drop a stored version, and drops it after the migration', async () => {
    await up.kubectlOk(['apply', '-f', '-'], gadgetCrd(['v1alpha1']));
    expect(JSON.parse(await storedVersions())).toEqual(['v1alpha1']);
    // a new storage version is recorded at once, the old one kept
    await up.kubectlOk(['apply', '-f', '-'], gadgetCrd(['v1alpha1', 'v1']));
    expect(JSON.parse(await storedVersions())).toEqual(['v1alpha1', 'v1']);

    const refused = await up.kubectl(['apply', '-f', '-'], gadgetCrd(['v1']));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('status.storedVersions[0]: Invalid value: "v1alpha1": must appear in spec.versions');

    // after migrating the objects, the admin drops v1alpha1 from the status, then from the spec
    // (the status subresource over HTTP: Debian's kubectl 1.20 has no --subresource)
    const patched = await kubeconfigRequest(up.kubeconfig, 'PATCH', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.stored.example.com/status', {
      contentType: 'application/merge-patch+json',
      text: JSON.stringify({ status: { storedVersions: ['v1'] } }),
    });
    expect(patched.status, patched.text).toBe(200);
    expect(JSON.parse(await storedVersions())).toEqual(['v1']);
    await up.kubectlOk(['apply', '-f', '-'], gadgetCrd(['v1']));
    expect(await up.kubectlOk(['get', 'crd', 'gadgets.stored.example.com', '-o', 'jsonpath={.spec.versions[*].name}'])).toBe('v1');
  });
});

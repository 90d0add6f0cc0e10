import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eUnavailableReason, eventually, startOlmUp, type OlmUp } from './olm-up.js';

const unavailable = e2eUnavailableReason();
if (unavailable) console.warn(`end-to-end suite skipped: ${unavailable}`);

// The installer account and what installing acme-database takes (escalate and bind: the bundle's RBAC).
const installer = `
apiVersion: v1
kind: Namespace
metadata: { name: acme-system }
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: installer, namespace: acme-system }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: acme-installer }
rules:
  - { apiGroups: [apiextensions.k8s.io], resources: [customresourcedefinitions], verbs: [get, list, watch, create, update, patch, delete] }
  - { apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings, roles, rolebindings], verbs: [get, list, watch, create, update, patch, delete, escalate, bind] }
  - { apiGroups: [''], resources: [serviceaccounts, services, configmaps, secrets], verbs: [get, list, watch, create, update, patch, delete] }
  - { apiGroups: [apps], resources: [deployments], verbs: [get, list, watch, create, update, patch, delete] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: acme-installer }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: acme-installer }
subjects: [{ kind: ServiceAccount, name: installer, namespace: acme-system }]
`;

const extension = `
apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata: { name: acme-database }
spec:
  namespace: acme-system
  serviceAccount: { name: installer }
  source:
    sourceType: Catalog
    catalog: { packageName: acme-database, version: 1.1.x }
`;

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

describe.skipIf(unavailable !== undefined)('end to end: an OLM v1 ClusterExtension with kubectl against olm up', { timeout: 240_000 }, () => {
  let up: OlmUp;
  const read = async () => JSON.parse(await up.kubectlOk(['get', 'clusterextension', 'acme-database', '-o', 'json'])) as { status?: { install?: { bundle: { version: string } }; conditions?: Condition[] } };
  const progressing = (object: Awaited<ReturnType<typeof read>>) => object.status?.conditions?.find((condition) => condition.type === 'Progressing');
  const installed = (version: string) =>
    eventually(`acme-database ${version} installed`, async () => {
      const object = await read();
      return object.status?.install?.bundle.version === version && progressing(object)?.reason === 'Succeeded' ? object : undefined;
    });
  const patch = (catalog: Record<string, string>) =>
    up.kubectlOk(['patch', 'clusterextension', 'acme-database', '--type', 'merge', '-p', JSON.stringify({ spec: { source: { catalog } } })]);

  beforeAll(async () => {
    up = await startOlmUp();
    await up.kubectlOk(['apply', '-f', '-'], installer);
  });
  afterAll(async () => {
    expect(await up?.stop()).toBe(0);
  });

  it('installs 1.1.x, keeps it without an upgrade edge under CatalogProvided, moves up and down under SelfCertified, and deleting removes everything', async () => {
    await up.kubectlOk(['apply', '-f', '-'], extension);
    // 1.1.1 is deprecated in the example catalog: upstream resolution prefers 1.1.0
    await installed('1.1.0');
    const table = await up.kubectlOk(['get', 'clusterextensions']);
    expect(table).toMatch(/^NAME\s+INSTALLED BUNDLE\s+VERSION\s+INSTALLED\s+PROGRESSING\s+AGE\n/);
    expect(table).toMatch(/\nacme-database\s+acme-database\.v1\.1\.0\s+1\.1\.0\s+True\s+True\s+\S+\n/);
    expect(await up.kubectlOk(['get', 'crd', 'databases.acme.example.com', '-o', 'name'])).toBe('customresourcedefinition.apiextensions.k8s.io/databases.acme.example.com\n');

    // 1.0.0 -> 1.2.0: 1.2.0 replaces 1.1.0 (and skips 1.1.1), no edge from 1.0.0
    await patch({ version: '1.0.0', upgradeConstraintPolicy: 'SelfCertified' });
    await installed('1.0.0');
    await patch({ version: '1.2.0', upgradeConstraintPolicy: 'CatalogProvided' });
    const kept = await eventually('no upgrade edge reported', async () => {
      const object = await read();
      return progressing(object)?.message.includes('no bundles found') ? object : undefined;
    });
    expect(progressing(kept)).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message: 'error upgrading from currently installed version "1.0.0": no bundles found for package "acme-database" matching version "1.2.0"',
    });
    expect(kept.status?.install?.bundle.version).toBe('1.0.0');
    await patch({ upgradeConstraintPolicy: 'SelfCertified' });
    await installed('1.2.0');
    await patch({ version: '1.0.0' });
    await installed('1.0.0');

    await up.kubectlOk(['delete', 'clusterextension', 'acme-database', '--wait=true', '--timeout=60s']);
    expect((await up.kubectl(['get', 'crd', 'databases.acme.example.com'])).code).not.toBe(0);
    expect(await up.kubectlOk(['get', 'deployments', '-n', 'acme-system', '-o', 'name'])).toBe('');
  });
});

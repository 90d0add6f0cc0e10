import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, kubeConfigOf, send, startTestServer } from './helpers.js';
import { kubectl, kubectlMinorVersion, runKubectl } from './kubectl-client.js';

// A CRD version marked `deprecated: true` makes every request to it carry `Warning: 299 - "…"`:
// its `deprecationWarning`, else `<group>/<version> <Kind> is deprecated` (plus `; use <group>/<newer> <Kind>`).

const minor = kubectlMinorVersion();
if (minor === undefined) console.warn(`kubectl cases skipped: "${kubectl} version --client" failed (set KUBECTL to a kubectl binary)`);

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };

const gadgets = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      { name: 'v1alpha1', served: true, storage: false, deprecated: true, schema },
      { name: 'v1beta1', served: true, storage: false, deprecated: true, deprecationWarning: 'v1beta1 gadgets go away in 2027; use v1', schema },
      { name: 'v1', served: true, storage: true, schema },
      // Not served, so never recommended.
      { name: 'v2', served: false, storage: false, schema },
    ],
  },
};

// Every version deprecated: the default warning recommends nothing.
const relics = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'relics.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Cluster',
    names: { plural: 'relics', singular: 'relic', kind: 'Relic' },
    versions: [
      { name: 'v1', served: true, storage: true, deprecated: true, schema },
      { name: 'v2beta1', served: true, storage: false, deprecated: true, schema },
    ],
  },
};

const alphaWarning = '299 - "example.com/v1alpha1 Gadget is deprecated; use example.com/v1 Gadget"';
const betaWarning = '299 - "v1beta1 gadgets go away in 2027; use v1"';

describe('deprecated custom resource versions', () => {
  let server: ApiServer;
  let workDir: string;

  beforeAll(async () => {
    server = await startTestServer({ tls: true });
    workDir = mkdtempSync(join(tmpdir(), 'olm-deprecated-'));
    for (const crd of [gadgets, relics]) {
      const created = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      expect(created.status, created.text).toBe(201);
    }
  });

  afterAll(async () => {
    await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('warns on every request to a deprecated version, errors included, and not on the others', async () => {
    const path = (version: string, rest = '') => `/apis/example.com/${version}/namespaces/default/gadgets${rest}`;
    const created = await call(server, 'POST', path('v1alpha1'), { apiVersion: 'example.com/v1alpha1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('warning')).toBe(alphaWarning);
    expect((await call(server, 'GET', path('v1alpha1'))).headers.get('warning')).toBe(alphaWarning);
    expect((await call(server, 'GET', path('v1alpha1', '/g1'))).headers.get('warning')).toBe(alphaWarning);
    const missing = await call(server, 'GET', path('v1alpha1', '/absent'));
    expect(missing.status).toBe(404);
    expect(missing.headers.get('warning')).toBe(alphaWarning);
    const patched = await call(server, 'PATCH', path('v1beta1', '/g1'), { spec: { size: 2 } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(patched.headers.get('warning')).toBe(betaWarning);
    expect((await call(server, 'DELETE', path('v1beta1', '/g1'))).headers.get('warning')).toBe(betaWarning);
    expect((await call(server, 'GET', path('v1'))).headers.get('warning')).toBeNull();
  });

  it('sends the deprecation warning before the others of the request', async () => {
    const created = await call(server, 'POST', '/apis/example.com/v1alpha1/namespaces/default/gadgets', { apiVersion: 'example.com/v1alpha1', kind: 'Gadget', metadata: { name: 'g2' }, spec: { size: 1, colour: 'red' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('warning')).toBe(`${alphaWarning}, 299 - "unknown field \\"spec.colour\\""`);
  });

  it('warns on watches of a deprecated version', async () => {
    const response = await send(server, 'GET', '/apis/example.com/v1beta1/gadgets?watch=true', {});
    expect(response.headers['warning']).toBe(betaWarning);
    response.destroy();
  });

  it('names no replacement when no newer version is served and not deprecated', async () => {
    const response = await call(server, 'GET', '/apis/example.com/v1/relics');
    expect(response.headers.get('warning')).toBe('299 - "example.com/v1 Relic is deprecated"');
    expect((await call(server, 'GET', '/apis/example.com/v2beta1/relics')).headers.get('warning')).toBe('299 - "example.com/v2beta1 Relic is deprecated"');
  });

  it('exposes the warning to @kubernetes/client-node', async () => {
    const config = kubeConfigOf(server);
    const custom = config.makeApiClient(CustomObjectsApi);
    const created = await custom.createNamespacedCustomObjectWithHttpInfo({
      group: 'example.com',
      version: 'v1beta1',
      namespace: 'default',
      plural: 'gadgets',
      body: { apiVersion: 'example.com/v1beta1', kind: 'Gadget', metadata: { name: 'from-client-node' }, spec: { size: 3 } },
    });
    expect(created.httpStatusCode).toBe(201);
    expect(created.headers['warning']).toBe(betaWarning);
    const listed = await custom.listNamespacedCustomObjectWithHttpInfo({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'gadgets' });
    expect(listed.headers['warning']).toBeUndefined();
  });

  it('makes kubectl print the warning on stderr', async () => {
    if (minor === undefined) return;
    const env = { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: join(workDir, 'cache'), HOME: workDir };
    const path = join(workDir, 'gadget.yaml');
    writeFileSync(path, 'apiVersion: example.com/v1alpha1\nkind: Gadget\nmetadata:\n  name: from-kubectl\n  namespace: default\nspec:\n  size: 4\n');
    const applied = await runKubectl(['apply', '-f', path], { env, cwd: workDir });
    expect(applied.stdout.trim()).toBe('gadget.example.com/from-kubectl created');
    expect(applied.stderr).toContain('Warning: example.com/v1alpha1 Gadget is deprecated; use example.com/v1 Gadget');
    const listed = await runKubectl(['get', 'gadgets.v1beta1.example.com', '-o', 'name'], { env, cwd: workDir });
    expect(listed.stdout).toContain('gadget.example.com/from-kubectl');
    expect(listed.stderr).toContain('Warning: v1beta1 gadgets go away in 2027; use v1');
    const current = await runKubectl(['get', 'gadgets.v1.example.com', '-o', 'name'], { env, cwd: workDir });
    expect(current.stderr).not.toContain('Warning');
  });

  it('rejects a deprecationWarning on a version that is not deprecated', async () => {
    const crd = structuredClone(gadgets);
    crd.metadata.name = 'gizmos.example.com';
    crd.spec.names = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' };
    (crd.spec.versions[2] as Record<string, unknown>)['deprecationWarning'] = 'not yet';
    const response = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(response.status).toBe(422);
    expect(response.body.message).toContain('spec.versions[2].deprecationWarning: Invalid value: "not yet": can only be set for deprecated versions');
  });
});

import { ApiextensionsV1Api, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { kubeConfigOf, startTestServer } from './helpers.js';

/** status.storedVersions as kube-apiserver's CRD strategy and validation keep it, through the real client. */
let server: ApiServer;
let crds: ApiextensionsV1Api;

beforeAll(async () => {
  server = await startTestServer();
  const config = kubeConfigOf(server);
  crds = config.makeApiClient(ApiextensionsV1Api);
});
afterAll(async () => {
  await server?.stop();
});

const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

function gadgetCrd(versions: Array<{ name: string; storage: boolean }>): V1CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.stored.example.com' },
    spec: {
      group: 'stored.example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      versions: versions.map((version) => ({ ...version, served: true, schema })),
    },
  };
}

/** The error body the client rejected with (client-node 1.x puts the Status text in `body`). */
async function refusal(promise: Promise<unknown>): Promise<{ code: number; status: { reason: string; message: string; details: { causes: Array<{ field: string; message: string }> } } }> {
  try {
    await promise;
  } catch (error) {
    const failure = error as { code: number; body: string };
    return { code: failure.code, status: JSON.parse(failure.body) };
  }
  throw new Error('the request was accepted');
}

describe('CRD status.storedVersions', () => {
  it('records the storage version in the create response, ignoring a status sent with it', async () => {
    const created = await crds.createCustomResourceDefinition({
      body: { ...gadgetCrd([{ name: 'v1alpha1', storage: true }]), status: { storedVersions: ['v0'], conditions: [], acceptedNames: { plural: 'x', kind: 'X' } } },
    });
    expect(created.status?.storedVersions).toEqual(['v1alpha1']);
  });

  it('adds a new storage version in the update response, after the earlier ones', async () => {
    const current = await crds.readCustomResourceDefinition({ name: 'gadgets.stored.example.com' });
    const moved = gadgetCrd([
      { name: 'v1alpha1', storage: false },
      { name: 'v1', storage: true },
    ]);
    const updated = await crds.replaceCustomResourceDefinition({ name: 'gadgets.stored.example.com', body: { ...moved, metadata: current.metadata, status: { storedVersions: ['v1'] } } });
    // the status sent with a spec update is ignored; the new storage version joins the recorded ones
    expect(updated.status?.storedVersions).toEqual(['v1alpha1', 'v1']);
  });

  it('refuses to remove a stored version from spec.versions, in kube-apiserver words', async () => {
    const current = await crds.readCustomResourceDefinition({ name: 'gadgets.stored.example.com' });
    const { code, status } = await refusal(
      crds.replaceCustomResourceDefinition({ name: 'gadgets.stored.example.com', body: { ...gadgetCrd([{ name: 'v1', storage: true }]), metadata: current.metadata } }),
    );
    expect(code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toBe('CustomResourceDefinition.apiextensions.k8s.io "gadgets.stored.example.com" is invalid: status.storedVersions[0]: Invalid value: "v1alpha1": must appear in spec.versions');
    expect(status.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'status.storedVersions[0]', message: 'Invalid value: "v1alpha1": must appear in spec.versions' }]);
    // a JSON patch removing the version is refused the same way, and nothing changed
    const patched = await refusal(
      crds.patchCustomResourceDefinition({ name: 'gadgets.stored.example.com', body: [{ op: 'remove', path: '/spec/versions/0' }] }),
    );
    expect(patched.code).toBe(422);
    const after = await crds.readCustomResourceDefinition({ name: 'gadgets.stored.example.com' });
    expect(after.spec.versions.map((version) => version.name)).toEqual(['v1alpha1', 'v1']);
    expect(after.metadata?.resourceVersion).toBe(current.metadata?.resourceVersion);
  });

  it('takes any list in a status write, as kube-apiserver, and checks it at the next write of the CRD', async () => {
    const current = await crds.readCustomResourceDefinition({ name: 'gadgets.stored.example.com' });
    const withStored = async (storedVersions: string[]) =>
      crds.replaceCustomResourceDefinitionStatus({
        name: 'gadgets.stored.example.com',
        body: { ...(await crds.readCustomResourceDefinition({ name: 'gadgets.stored.example.com' })), status: { ...current.status, storedVersions } as never },
      });
    const relabel = async (value: string) => {
      const latest = await crds.readCustomResourceDefinition({ name: 'gadgets.stored.example.com' });
      return crds.replaceCustomResourceDefinition({ name: 'gadgets.stored.example.com', body: { ...latest, metadata: { ...latest.metadata, labels: { step: value } } } });
    };
    // emptied by a status write: the next write of the CRD records the storage version again
    expect((await withStored([])).status?.storedVersions).toEqual([]);
    expect((await relabel('a')).status?.storedVersions).toEqual(['v1']);
    // a version that is not in spec.versions: accepted in the status, then every write of the CRD is refused until it is fixed
    expect((await withStored(['v1alpha1', 'v1', 'v2'])).status?.storedVersions).toEqual(['v1alpha1', 'v1', 'v2']);
    const refused = await refusal(relabel('b'));
    expect(refused.code).toBe(422);
    expect(refused.status.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'status.storedVersions[2]', message: 'Invalid value: "v2": must appear in spec.versions' }]);
    await withStored(['v1alpha1', 'v1']);
    expect((await relabel('c')).metadata?.labels).toEqual({ step: 'c' });
  });

  it('refuses a CRD without one storage version with both kube-apiserver causes', async () => {
    const none = await refusal(crds.createCustomResourceDefinition({ body: { ...gadgetCrd([{ name: 'v1', storage: false }]), metadata: { name: 'gizmos.stored.example.com' }, spec: { ...gadgetCrd([{ name: 'v1', storage: false }]).spec, names: { plural: 'gizmos', kind: 'Gizmo' } } } }));
    expect(none.code).toBe(422);
    expect(none.status.details.causes).toContainEqual({ reason: 'FieldValueInvalid', field: 'status.storedVersions', message: 'Invalid value: []string(nil): must have at least one stored version' });
    const two = await refusal(
      crds.createCustomResourceDefinition({
        body: {
          ...gadgetCrd([
            { name: 'v1', storage: true },
            { name: 'v2', storage: true },
          ]),
          metadata: { name: 'gizmos.stored.example.com' },
          spec: {
            ...gadgetCrd([
              { name: 'v1', storage: true },
              { name: 'v2', storage: true },
            ]).spec,
            names: { plural: 'gizmos', kind: 'Gizmo' },
          },
        },
      }),
    );
    expect(two.status.details.causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'status.storedVersions',
      message: expect.stringMatching(/^Invalid value: apiextensions\.CustomResourceDefinitionVersion\{Name:"v2", .*\}: must have the storage version v2$/),
    });
  });

  it('lets an admin drop a migrated stored version from status, then from spec (the documented procedure)', async () => {
    const current = await crds.readCustomResourceDefinition({ name: 'gadgets.stored.example.com' });
    const migrated = await crds.patchCustomResourceDefinitionStatus({
      name: 'gadgets.stored.example.com',
      body: [{ op: 'replace', path: '/status/storedVersions', value: ['v1'] }],
    });
    expect(migrated.status?.storedVersions).toEqual(['v1']);
    // a status write does not put the storage version back, nor touch the spec
    expect(migrated.spec.versions.map((version) => version.name)).toEqual(['v1alpha1', 'v1']);
    const dropped = await crds.replaceCustomResourceDefinition({
      name: 'gadgets.stored.example.com',
      body: { ...gadgetCrd([{ name: 'v1', storage: true }]), metadata: migrated.metadata },
    });
    expect(dropped.spec.versions.map((version) => version.name)).toEqual(['v1']);
    expect(dropped.status?.storedVersions).toEqual(['v1']);
    expect(Number(dropped.metadata?.generation)).toBe(Number(current.metadata?.generation) + 1);
  });
});

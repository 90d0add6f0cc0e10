import { KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, installWidgetCrd, kubeConfigOf, openWatch, startTestServer } from './helpers.js';

/**
 * kube-apiserver skips a write that changes nothing: the object keeps its resourceVersion and managedFields
 * times, and watchers see no event. Checked with the real client for apply, update and every patch type.
 */
type Any = KubernetesObject & { metadata: { name: string; namespace?: string } } & Record<string, any>;

let server: ApiServer;
let objects: KubernetesObjectApi;

beforeAll(async () => {
  server = await startTestServer();
  const config = kubeConfigOf(server);
  objects = KubernetesObjectApi.makeApiClient(config);
  await installWidgetCrd(server);
});
afterAll(async () => {
  await server?.stop();
});

const apply = (object: Any, manager = 'tester'): Promise<Any> => objects.patch(object, undefined, undefined, manager, true, PatchStrategy.ServerSideApply) as Promise<Any>;

/**
 * Runs `writes` (each expected to change nothing) with a watch open on the object's collection, then makes
 * one real change as a marker: the marker must be the only event the watch delivers.
 */
async function expectNoEvents(collection: string, marker: () => Promise<Any>, writes: () => Promise<void>): Promise<void> {
  const watch = openWatch(server, `${collection}?watch=true&resourceVersion=${server.revision()}`);
  try {
    await writes();
    const changed = await marker();
    const events = await watch.waitFor(1);
    expect(events.map((event) => `${event.type} ${event.object.metadata.resourceVersion}`)).toEqual([`MODIFIED ${changed.metadata?.resourceVersion}`]);
  } finally {
    watch.stop();
  }
}

describe('writes that change nothing', () => {
  it('server-side apply of the same configuration keeps resourceVersion, managedFields times, and sends no event', async () => {
    const configMap: Any = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'same', namespace: 'default', labels: { app: 'same' } }, data: { a: '1' } };
    await apply(configMap);
    // managedFields times have a one-second resolution: a later second shows whether they were rewritten.
    // A second applier, a second later, sorts after the first; were the first's no-op apply given a new
    // time, its entry would move behind the second's.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const first = await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'same', namespace: 'default' }, data: { b: 'x' } }, 'zeta');
    expect(first.metadata?.managedFields?.map((entry) => entry.manager)).toEqual(['tester', 'zeta']);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await expectNoEvents(
      '/api/v1/namespaces/default/configmaps',
      () => apply({ ...configMap, data: { a: '2' } }),
      async () => {
        const again = await apply(configMap);
        expect(again.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
        expect(again.metadata?.managedFields).toEqual(first.metadata?.managedFields);
        // the same values from the object read back (server-set fields included) change nothing either
        const read = (await objects.read(configMap)) as Any;
        const replaced = (await objects.replace(read)) as Any;
        expect(replaced.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
        expect(replaced.metadata?.managedFields).toEqual(first.metadata?.managedFields);
        for (const strategy of [PatchStrategy.MergePatch, PatchStrategy.StrategicMergePatch]) {
          const patched = (await objects.patch({ ...configMap, data: { a: '1' } }, undefined, undefined, 'patcher', undefined, strategy)) as Any;
          expect(patched.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
        }
        const jsonPatch = await call(server, 'PATCH', '/api/v1/namespaces/default/configmaps/same', [{ op: 'replace', path: '/data/a', value: '1' }], {
          'Content-Type': 'application/json-patch+json',
        });
        expect(jsonPatch.body.metadata.resourceVersion).toBe(first.metadata?.resourceVersion);
      },
    );
    const after = (await objects.read(configMap)) as Any;
    expect(after.data).toEqual({ a: '2', b: 'x' });
  });

  it('applies a defaulted Deployment and a custom resource twice without a second write', async () => {
    const deployment: Any = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'steady', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'steady' } }, template: { metadata: { labels: { app: 'steady' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } },
    };
    const widget: Any = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'steady', namespace: 'default' }, spec: { size: 1 } };
    const firstWidget = await apply(widget);
    await expectNoEvents(
      '/apis/example.com/v1/namespaces/default/widgets',
      () => apply({ ...widget, spec: { size: 2 } }),
      async () => {
        const again = await apply(widget);
        expect(again.metadata?.resourceVersion).toBe(firstWidget.metadata?.resourceVersion);
        // a merge patch setting the value the object already has changes nothing, whoever sends it
        const merged = (await objects.patch({ ...widget, spec: { size: 1 } }, undefined, undefined, 'other', undefined, PatchStrategy.MergePatch)) as Any;
        expect(merged.metadata?.resourceVersion).toBe(firstWidget.metadata?.resourceVersion);
      },
    );
    const firstDeployment = await apply(deployment);
    // the rollout simulation writes status; wait for it so that only our write remains
    const settled = await eventually(async () => {
      const current = (await objects.read(deployment)) as Any;
      expect(current.status?.availableReplicas).toBe(1);
      return current;
    });
    expect(Number(settled.metadata?.resourceVersion)).toBeGreaterThan(Number(firstDeployment.metadata?.resourceVersion));
    const again = await apply(deployment);
    expect(again.metadata?.resourceVersion).toBe(settled.metadata?.resourceVersion);
    expect(again.metadata?.generation).toBe(1);
  });
});

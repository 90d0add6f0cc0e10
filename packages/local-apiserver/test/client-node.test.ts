import { AppsV1Api, CoreV1Api, KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, setHeaderOptions, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, installWidgetCrd, kubeConfigOf, startTestServer } from './helpers.js';

describe('with @kubernetes/client-node', () => {
  let server: ApiServer;
  let config: KubeConfig;
  let objects: KubernetesObjectApi;

  beforeAll(async () => {
    server = await startTestServer({ watchWindow: 50 });
    config = kubeConfigOf(server);
    objects = KubernetesObjectApi.makeApiClient(config);
  });

  afterAll(async () => {
    await server.stop();
  });

  it('lists the seeded namespaces through the generated kubeconfig', async () => {
    const core = config.makeApiClient(CoreV1Api);
    const list = await core.listNamespace();
    expect(list.items.map((namespace) => namespace.metadata?.name).sort()).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    expect(list.metadata?.resourceVersion).toMatch(/^\d+$/);
  });

  it('does generic CRUD on built-ins and custom resources with KubernetesObjectApi', async () => {
    const created = await objects.create<V1ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: 'default' }, data: { a: '1' } });
    expect(created.metadata?.uid).toBeDefined();
    const read = await objects.read<V1ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'generic', namespace: 'default' } });
    expect(read.data).toEqual({ a: '1' });
    const replaced = await objects.replace<V1ConfigMap>({ ...read, data: { a: '2' } });
    expect(replaced.data).toEqual({ a: '2' });
    await expect(objects.replace<V1ConfigMap>({ ...read, data: { a: '3' } })).rejects.toMatchObject({ code: 409 });

    await installWidgetCrd(server);
    // Right after the CRD is stored, discovery serves the new kind.
    const widget = await objects.create<KubernetesObject & { spec: unknown }>({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 1 } });
    expect(widget).toMatchObject({ apiVersion: 'example.com/v1', kind: 'Widget', spec: { size: 1, color: 'blue' } });
    const list = await objects.list('example.com/v1', 'Widget', 'default');
    expect(list.items.map((item) => item.metadata?.name)).toEqual(['w1']);
    await objects.delete({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' } });
    await expect(objects.read({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' } })).rejects.toMatchObject({ code: 404 });
  });

  it('applies all four patch types', async () => {
    const apps = config.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'patched' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'patched' } },
          template: { metadata: { labels: { app: 'patched' } }, spec: { containers: [{ name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }] }, { name: 'b', image: 'b:1' }] } },
        },
      },
    });
    // Strategic merge (client-node's default): the container list merges by name.
    const strategic = await objects.patch({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'patched', namespace: 'default' }, spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } } as KubernetesObject);
    expect((strategic as any).spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(['a=a:1', 'b=b:2']);
    // Merge patch replaces lists.
    const merged = await objects.patch(
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'patched', namespace: 'default' }, spec: { replicas: 3 } } as KubernetesObject,
      undefined, undefined, undefined, undefined, PatchStrategy.MergePatch,
    );
    expect((merged as any).spec.replicas).toBe(3);
    expect((merged as any).metadata.generation).toBe(3);
    // JSON patch through the typed client.
    const json = await apps.patchNamespacedDeployment(
      { name: 'patched', namespace: 'default', body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'a:3' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    expect(json.spec?.template.spec?.containers[0]?.image).toBe('a:3');
    // Server-side apply: creates, owns fields, and conflicts with another manager.
    const applied = await objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' }, data: { owned: 'yes', shared: 'a' } } as KubernetesObject,
      undefined, undefined, 'tester', true, PatchStrategy.ServerSideApply,
    );
    expect((applied as any).metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'tester', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:owned': {}, 'f:shared': {} } } }),
    ]);
    await expect(
      objects.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' }, data: { shared: 'b' } } as KubernetesObject, undefined, undefined, 'other', false, PatchStrategy.ServerSideApply),
    ).rejects.toMatchObject({ code: 409 });
  });

  it('keeps an informer in sync across list, watch and a server-side close of the watch', async () => {
    const core = config.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'informed' } } });
    let lists = 0;
    const informer = makeInformer<V1ConfigMap>(config, '/api/v1/namespaces/informed/configmaps', () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: 'informed' });
    });
    const seen: string[] = [];
    informer.on('add', (object) => seen.push(`add ${object.metadata?.name}`));
    informer.on('delete', (object) => seen.push(`delete ${object.metadata?.name}`));
    await core.createNamespacedConfigMap({ namespace: 'informed', body: { metadata: { name: 'before' } } });
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'informed', body: { metadata: { name: 'during' } } });
    await eventually(() => expect(informer.list().map((item) => item.metadata?.name).sort()).toEqual(['before', 'during']));

    // The server ends the watch; the informer re-watches from its last resourceVersion without relisting.
    server.closeWatches();
    await core.createNamespacedConfigMap({ namespace: 'informed', body: { metadata: { name: 'after' } } });
    await core.deleteNamespacedConfigMap({ namespace: 'informed', name: 'before' });
    await eventually(() => expect(informer.list().map((item) => item.metadata?.name).sort()).toEqual(['after', 'during']));
    expect(seen).toEqual(['add before', 'add during', 'add after', 'delete before']);
    expect(lists).toBe(1);
    informer.stop();
  });
});

describe('informer recovery', () => {
  it('relists when resuming its watch gets 410 Expired', async () => {
    const server = await startTestServer({ watchWindow: 5 });
    try {
      const config = kubeConfigOf(server);
      const core = config.makeApiClient(CoreV1Api);
      await core.createNamespace({ body: { metadata: { name: 'resync' } } });
      let lists = 0;
      const informer = makeInformer<V1ConfigMap>(config, '/api/v1/namespaces/resync/configmaps', () => {
        lists++;
        return core.listNamespacedConfigMap({ namespace: 'resync' });
      });
      const errors: unknown[] = [];
      informer.on('error', (error) => errors.push(error));
      await informer.start();
      await core.createNamespacedConfigMap({ namespace: 'resync', body: { metadata: { name: 'one' } } });
      await eventually(() => expect(informer.list()).toHaveLength(1));

      // Expire everything the informer could resume from, then end its watch: the resume gets 410 and it relists.
      for (let index = 0; index < 8; index++) await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'noise-' } });
      server.compact(server.revision());
      server.closeWatches();
      await core.createNamespacedConfigMap({ namespace: 'resync', body: { metadata: { name: 'two' } } });
      await eventually(() => expect(lists).toBe(2));
      await eventually(() => expect(informer.list().map((item) => item.metadata?.name).sort()).toEqual(['one', 'two']));
      expect(errors).toEqual([]);
      informer.stop();
    } finally {
      await server.stop();
    }
  });
});

import { AppsV1Api, CustomObjectsApi, KubeConfig, makeInformer, type KubernetesObject, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { eventually, installWidgetCrd, kubeConfigOf, startTestServer } from './helpers.js';

type Widget = KubernetesObject & { spec: { size: number }; status?: { phase?: string; observedGeneration?: number } };

/** The shape of an OLM controller, end to end: informer → owned Deployment → rollout → status → GC. */
describe('a controller built on client-node', () => {
  let server: ApiServer;
  let config: KubeConfig;

  beforeAll(async () => {
    server = await startTestServer({ deploymentRolloutDelayMs: 30 });
    await installWidgetCrd(server);
    config = kubeConfigOf(server);
  });

  afterAll(async () => {
    await server.stop();
  });

  it('reconciles widgets into Deployments and reports their rollout in status', async () => {
    const custom = config.makeApiClient(CustomObjectsApi);
    const apps = config.makeApiClient(AppsV1Api);
    const listWidgets = () => custom.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' }) as Promise<any>;
    const widgets = makeInformer<Widget>(config, '/apis/example.com/v1/namespaces/default/widgets', listWidgets);
    const deployments = makeInformer<V1Deployment>(config, '/apis/apps/v1/namespaces/default/deployments', () => apps.listNamespacedDeployment({ namespace: 'default' }));

    const reconcile = async (widget: Widget): Promise<void> => {
      const name = widget.metadata?.name ?? '';
      const uid = widget.metadata?.uid ?? '';
      const existing = deployments.get(name, 'default');
      if (!existing) {
        await apps.createNamespacedDeployment({
          namespace: 'default',
          body: {
            metadata: { name, ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name, uid, controller: true, blockOwnerDeletion: true }] },
            spec: { replicas: widget.spec.size, selector: { matchLabels: { widget: name } }, template: { metadata: { labels: { widget: name } }, spec: { containers: [{ name: 'w', image: 'widget:1' }] } } },
          },
        }).catch((error: { code?: number }) => {
          if (error.code !== 409) throw error;
        });
        return;
      }
      const available = (existing.status?.availableReplicas ?? 0) === widget.spec.size && (existing.status?.observedGeneration ?? 0) >= (existing.metadata?.generation ?? 1);
      const phase = available ? 'Ready' : 'Installing';
      if (widget.status?.phase === phase) return;
      // Status through the subresource with the informer's resourceVersion; a 409 means retry on the next event.
      await custom
        .replaceNamespacedCustomObjectStatus({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', name, body: { ...widget, status: { phase, observedGeneration: widget.metadata?.generation } } })
        .catch((error: { code?: number }) => {
          if (error.code !== 409) throw error;
        });
    };
    const queue = (): void => {
      for (const widget of widgets.list()) void reconcile(widget);
    };
    widgets.on('add', queue);
    widgets.on('update', queue);
    deployments.on('add', queue);
    deployments.on('update', queue);
    await deployments.start();
    await widgets.start();

    await custom.createNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'flow' }, spec: { size: 2 } } });
    await eventually(() => expect(widgets.get('flow', 'default')?.status?.phase).toBe('Ready'), 10_000);
    const deployment = await apps.readNamespacedDeployment({ name: 'flow', namespace: 'default' });
    expect(deployment.status?.readyReplicas).toBe(2);

    // Deleting the widget garbage-collects the Deployment it owns.
    await custom.deleteNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', name: 'flow' });
    await eventually(() => expect(deployments.get('flow', 'default')).toBeUndefined(), 10_000);
    widgets.stop();
    deployments.stop();
  });
});

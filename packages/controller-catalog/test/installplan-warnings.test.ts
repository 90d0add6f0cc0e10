import type { KubeClient } from '@olm/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { writeCatalog } from './fbc-catalog.js';
import { createOperatorNamespace, eventually, get, kubectl, kubectlBinary, list, startCluster, startController, subscription } from './helpers.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let controller: Awaited<ReturnType<typeof startController>>;
const metricsRegistry = new Registry();
const directory = mkdtempSync(join(tmpdir(), 'olm-warnings-'));
const serviceMonitorKind = { apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor' };

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  // Bundles often ship a ServiceMonitor; its CRD has a structural schema, so unknown fields are pruned with a warning.
  await client.create({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'servicemonitors.monitoring.coreos.com' },
    spec: {
      group: 'monitoring.coreos.com',
      scope: 'Namespaced',
      names: { plural: 'servicemonitors', singular: 'servicemonitor', kind: 'ServiceMonitor', listKind: 'ServiceMonitorList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    endpoints: { type: 'array', items: { type: 'object', properties: { port: { type: 'string' }, interval: { type: 'string' } } } },
                    jobLabel: { type: 'string' },
                  },
                },
              },
            },
          },
        },
      ],
    },
  });
  await eventually(() => client.resourceFor(serviceMonitorKind), { message: 'ServiceMonitor served' });
  controller = await startController(cluster.server, client, { metrics: metricsRegistry });
});
afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
  rmSync(directory, { recursive: true, force: true });
});

const phaseOf = (object: AnyObject | undefined) => (object?.status as { phase?: string } | undefined)?.phase;

describe('API warnings while an InstallPlan is executed', () => {
  it('records an AppliedWithWarnings event on the step that drew them and counts it in installplan_warnings_total', async () => {
    writeCatalog(directory, [
      {
        name: 'monitored',
        defaultChannel: 'stable',
        channels: { stable: [{ name: 'monitored.v1.0.0' }] },
        bundles: [
          {
            name: 'monitored.v1.0.0',
            version: '1.0.0',
            objects: [
              // Two fields the schema does not know (typos an author could make): two warnings, one step.
              {
                apiVersion: 'monitoring.coreos.com/v1',
                kind: 'ServiceMonitor',
                metadata: { name: 'monitored-metrics' },
                spec: { jobLabell: 'app', endpoints: [{ port: 'metrics', intervall: '30s' }] },
              },
              // A built-in kind the server takes as is: no warning.
              { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'monitored-settings' }, data: { level: 'debug' } },
            ],
          },
        ],
      },
    ]);
    await createOperatorNamespace(client, 'warned');
    await client.create({ ...Kinds.catalogSource, metadata: { name: 'local', namespace: 'warned' }, spec: { sourceType: 'fbc-directory', address: directory } });
    await client.create(subscription('warned', 'monitored', { source: 'local', sourceNamespace: 'warned' }));

    const plan = await eventually(async () => {
      const plans = await list(client, Kinds.installPlan, 'warned');
      return plans.length === 1 && phaseOf(plans[0]) === 'Complete' && plans[0];
    });
    // The warnings do not stop the installation: the object exists, without the unknown fields.
    const monitor = await get(client, serviceMonitorKind, 'warned', 'monitored-metrics');
    expect(monitor?.spec).toEqual({ endpoints: [{ port: 'metrics' }] });

    const steps = (plan.status as { plan: Array<{ resource: { kind: string; name: string }; status: string }> }).plan;
    const monitorStep = steps.findIndex((step) => step.resource.kind === 'ServiceMonitor');
    expect(steps[monitorStep]?.status).toBe('Created');

    const events = await eventually(async () => {
      const found = (await list(client, { apiVersion: 'v1', kind: 'Event' }, 'warned')).filter((event) => event['reason'] === 'AppliedWithWarnings');
      return found.length > 0 && found;
    });
    expect(events).toHaveLength(1);
    // The warnings in the order the API server sent them.
    expect(events[0]).toMatchObject({
      type: 'Warning',
      involvedObject: {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'InstallPlan',
        namespace: 'warned',
        name: plan.metadata?.name,
        uid: plan.metadata?.uid,
        fieldPath: `status.plan[${monitorStep}]`,
      },
      message:
        '2 warning(s) generated during installation of operator "monitored.v1.0.0" (ServiceMonitor "monitored-metrics"): ' +
        'unknown field "spec.jobLabell", unknown field "spec.endpoints[0].intervall"',
      source: { component: 'catalog-operator' },
    });

    // One step drew warnings: the counter moves by one, as upstream's counts resources, not warnings.
    const counter = (await metricsRegistry.metrics()).split('\n').find((line) => line.startsWith('installplan_warnings_total'));
    expect(counter).toBe('installplan_warnings_total 1');

    if (kubectlBinary) {
      const described = await kubectl(cluster.server, ['describe', 'installplan', plan.metadata!.name!, '-n', 'warned']);
      expect(described).toMatch(/Warning\s+AppliedWithWarnings\s+.*2 warning\(s\) generated during installation of operator "monitored\.v1\.0\.0"/);
    }
  });
});

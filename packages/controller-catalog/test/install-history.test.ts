import { ProjectAnnotations, readInstallHistory } from '@olm/api';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Kinds } from '../src/kinds.js';
import { collectReplacedCsvs, createOperatorNamespace, eventually, get, list, subscription, useExampleCatalogEnvironment } from './helpers.js';

// Issue 24 item 4: the revisions a Subscription installed, kept on it (InstallPlans are garbage-collected).
const environment = useExampleCatalogEnvironment();

const historyOf = async (namespace: string, name: string) => readInstallHistory((await get(environment.client, Kinds.subscription, namespace, name))?.metadata?.annotations);

describe('install history', () => {
  it('records each CSV the Subscription installs, with its version and the plan that installed it, oldest first', async () => {
    const namespace = 'history-upgrades';
    await createOperatorNamespace(environment.client, namespace);
    onTestFinished(collectReplacedCsvs(environment.client, namespace));
    await environment.client.create(subscription(namespace, 'acme-database', { startingCSV: 'acme-database.v1.0.0' }));
    const history = await eventually(async () => {
      const entries = await historyOf(namespace, 'acme-database');
      return entries.at(-1)?.csv === 'acme-database.v1.2.0' && entries;
    }, { message: 'the history reaches acme-database.v1.2.0' });
    expect(history[0]).toMatchObject({ csv: 'acme-database.v1.0.0', version: '1.0.0' });
    expect(history.map((entry) => entry.version)).toEqual(history.map((entry) => entry.csv.slice('acme-database.v'.length)));
    const planNames = new Set((await list(environment.client, Kinds.installPlan, namespace)).map((plan) => plan.metadata!.name));
    for (const entry of history) {
      expect(entry.installPlan && planNames.has(entry.installPlan)).toBe(true);
      expect(Date.parse(entry.installedAt)).not.toBeNaN();
    }
    expect(new Set(history.map((entry) => entry.csv)).size).toBe(history.length);
  });

  it('keeps a history it is given (a rollback carries it over) and appends to it', async () => {
    const namespace = 'history-carried';
    await createOperatorNamespace(environment.client, namespace);
    const earlier = [{ csv: 'acme-monitoring.v0.0.9', version: '0.0.9', installedAt: '2026-01-01T00:00:00Z' }];
    const sub = subscription(namespace, 'acme-monitoring');
    sub.metadata = { ...sub.metadata, annotations: { [ProjectAnnotations.installHistory]: JSON.stringify(earlier) } };
    await environment.client.create(sub);
    const history = await eventually(async () => {
      const entries = await historyOf(namespace, 'acme-monitoring');
      return entries.length === 2 && entries;
    });
    expect(history[0]).toEqual(earlier[0]);
    expect(history[1]).toMatchObject({ csv: 'acme-monitoring.v0.1.0', version: '0.1.0' });
  });
});

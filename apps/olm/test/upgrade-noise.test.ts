import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalOlm, type LocalOlm } from './local-olm-cluster.js';

/**
 * A normal upgrade is quiet, as upstream's: while each replacement is installed, resolution never
 * fails (no `ResolutionFailed` Event or condition: the CSV being replaced is not an operator "not
 * referenced by a subscription"), and a Subscription names a CSV in `status.installedCSV` only once
 * that CSV exists.
 */
describe('an upgrade along replaces', () => {
  let olm: LocalOlm;
  beforeAll(async () => {
    olm = await startLocalOlm();
  });
  afterAll(async () => {
    await olm?.stop();
  });

  it('emits no resolution failure and never reports an installedCSV that does not exist', async () => {
    const namespace = 'quiet-upgrade';
    const { client, server } = olm;
    const startRevision = server.cluster.store.revision;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await client.create({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og', namespace }, spec: { targetNamespaces: [namespace] } });
    await client.create({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { name: 'acme-database', namespace },
      spec: { name: 'acme-database', channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm', startingCSV: 'acme-database.v1.0.0', installPlanApproval: 'Automatic' },
    });
    const head = 'acme-database.v1.2.0';
    const deadline = Date.now() + 120_000;
    for (;;) {
      const subscription = server.cluster.store.get('operators.coreos.com/subscriptions', namespace, 'acme-database') as { status?: { installedCSV?: string; state?: string } } | undefined;
      const csv = server.cluster.store.get('operators.coreos.com/clusterserviceversions', namespace, head) as { status?: { phase?: string } } | undefined;
      if (subscription?.status?.installedCSV === head && csv?.status?.phase === 'Succeeded') break;
      if (Date.now() > deadline) throw new Error(`no upgrade to ${head}: ${JSON.stringify(subscription?.status)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Give a late failure a chance to show.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    // Replay the namespace's history in revision order.
    const csvs = new Set<string>();
    const installedBeforeCreated: string[] = [];
    const installedSeen: string[] = [];
    const failures: string[] = [];
    for (const event of server.cluster.store.history()) {
      if (event.revision <= startRevision || event.object.metadata.namespace !== namespace) continue;
      const name = event.object.metadata.name ?? '';
      if (event.resource === 'operators.coreos.com/clusterserviceversions') {
        if (event.type === 'DELETED') csvs.delete(name);
        else csvs.add(name);
      }
      if (event.resource === 'operators.coreos.com/subscriptions') {
        const status = (event.object as { status?: { installedCSV?: string; conditions?: Array<{ type: string; status: string; message?: string }> } }).status;
        const installed = status?.installedCSV;
        if (installed && !csvs.has(installed)) installedBeforeCreated.push(installed);
        if (installed && installedSeen.at(-1) !== installed) installedSeen.push(installed);
        for (const condition of status?.conditions ?? []) if (condition.type === 'ResolutionFailed' && condition.status === 'True') failures.push(`condition: ${condition.message}`);
      }
      if (event.resource === '/events' && (event.object as { reason?: string }).reason === 'ResolutionFailed') failures.push(`event: ${(event.object as { message?: string }).message}`);
    }
    expect(installedSeen).toEqual(['acme-database.v1.0.0', 'acme-database.v1.1.0', head]);
    expect(installedBeforeCreated).toEqual([]);
    expect(failures).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reconciler } from '@olm/core';
import {
  condition,
  createNamespace,
  createOperatorNamespace,
  eventually,
  freeLoopbackPort,
  grpcCatalogSource,
  kubectlAvailable,
  kubectlFor,
  recordingLogger,
  startReconcilers,
  startTestCluster,
  subscription,
  type TestCluster,
} from '../src/index.js';

describe('eventually', () => {
  it('resolves with the first value that is not undefined, null or false, polling through errors', async () => {
    let calls = 0;
    const value = await eventually(() => {
      calls += 1;
      if (calls === 1) throw new Error('not yet');
      return calls === 2 ? null : calls === 3 ? false : calls === 4 ? undefined : calls;
    });
    expect(value).toBe(5);
  });

  it('resolves with 0 and the empty string: only undefined, null and false mean not yet', async () => {
    expect(await eventually(() => 0)).toBe(0);
    expect(await eventually(() => '')).toBe('');
  });

  it('times out naming what it waited for and the last error', async () => {
    await expect(
      eventually(
        () => {
          throw new Error('connection refused');
        },
        { timeoutMs: 50, message: 'the API server' },
      ),
    ).rejects.toThrow('the API server not met in time: Error: connection refused');
  });
});

describe('a test cluster', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({ tls: true, namespaces: ['olm'] });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('serves every OLM kind and has the namespaces it was asked for', async () => {
    for (const kind of ['ClusterServiceVersion', 'InstallPlan', 'Subscription', 'CatalogSource']) {
      expect((await cluster.client.resourceFor({ apiVersion: 'operators.coreos.com/v1alpha1', kind })).namespaced).toBe(true);
    }
    expect((await cluster.client.resourceFor({ apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition' })).namespaced).toBe(true);
    expect((await cluster.client.resourceFor({ apiVersion: 'operators.coreos.com/v1', kind: 'Operator' })).namespaced).toBe(false);
    expect(await cluster.client.find({ apiVersion: 'v1', kind: 'Namespace', name: 'olm' })).toBeDefined();
    expect(cluster.server.url).toMatch(/^https:/);
  });

  it('creates namespaces idempotently, with an OperatorGroup where operators are subscribed', async () => {
    await createNamespace(cluster.client, 'twice', { team: 'a' });
    await createNamespace(cluster.client, 'twice');
    expect((await cluster.client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'twice' })).metadata?.labels).toMatchObject({ team: 'a' });
    await createOperatorNamespace(cluster.client, 'team-a', { groupName: 'og', annotations: { note: 'x' } });
    const group = await cluster.client.get({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', namespace: 'team-a', name: 'og' });
    expect(group).toMatchObject({ spec: { targetNamespaces: ['team-a'] }, metadata: { annotations: { note: 'x' } } });
  });

  it('builds Subscriptions and CatalogSources the API server accepts', async () => {
    await cluster.client.create(grpcCatalogSource('olm', 'acme-examples', '127.0.0.1:50051', { labels: { tier: 'test' } }));
    const created = await cluster.client.create(subscription('team-a', 'acme-database', { channel: 'beta' }));
    expect(created).toMatchObject({ spec: { name: 'acme-database', channel: 'beta', source: 'acme-examples', sourceNamespace: 'olm', installPlanApproval: 'Automatic' } });
  });

  it('runs reconcilers on a manager of their own until stopped', async () => {
    const seen: string[] = [];
    const { logger, warnings } = recordingLogger();
    const reconciler: Reconciler = {
      name: 'namespace-watcher',
      for: { apiVersion: 'v1', kind: 'Namespace' },
      reconcile: async (request) => {
        seen.push(request.name);
        logger.warn('reconciled', { name: request.name });
        return {};
      },
    };
    let closed = false;
    const running = await startReconcilers({
      kubeconfig: cluster.server.kubeconfig,
      controller: () => ({ reconcilers: [reconciler], close: () => void (closed = true) }),
      manager: { resyncPeriodMs: 0 },
    });
    await createNamespace(cluster.client, 'watched');
    await eventually(() => seen.includes('watched'), { message: 'the new namespace reconciled' });
    expect(warnings).toContainEqual({ message: 'reconciled', fields: { name: 'watched' } });
    await running.stop();
    expect(closed).toBe(true);
  });

  it.skipIf(!kubectlAvailable())('runs kubectl against it with a cache of its own', async () => {
    const kubectl = kubectlFor(cluster.server.kubeconfigPath);
    try {
      expect(await kubectl.runOk(['get', 'namespace', 'olm', '-o', 'name'])).toBe('namespace/olm\n');
      const missing = await kubectl.run(['get', 'namespace', 'absent']);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('not found');
      await expect(kubectl.runOk(['get', 'namespace', 'absent'])).rejects.toThrow(/kubectl get namespace absent failed \(1\): .*not found/);
    } finally {
      kubectl.close();
    }
  });
});

describe('freeLoopbackPort', () => {
  it('gives a port a server can then listen on at 127.0.0.1', async () => {
    const port = await freeLoopbackPort();
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    expect((server.address() as { port: number }).port).toBe(port);
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('condition', () => {
  it('finds a status condition by type', () => {
    const object = { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Failed', status: 'False', reason: 'None' }] } };
    expect(condition(object, 'Failed')).toEqual({ type: 'Failed', status: 'False', reason: 'None' });
    expect(condition(object, 'Other')).toBeUndefined();
    expect(condition(undefined, 'Ready')).toBeUndefined();
  });
});

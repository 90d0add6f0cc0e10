import type { KubeClient } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogSourceTypes, loadCatalog } from '@olm/registry';
import { startEndlessRegistry, type EndlessRegistry } from '@olm/registry/testing';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { createOperatorNamespace, eventually, get, grpcCatalogSource, sleep, startCluster, startController, subscription } from './helpers.js';

// Issue 21 item 7: a gRPC catalog that is healthy but streams bundles forever. The client stops each stream at
// its bound, the CatalogSource status says why, and the catalog is read again only after growing delays
// (counted on the server over a window), not at once by every reader.

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let endless: EndlessRegistry;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  endless = await startEndlessRegistry();
});
afterAll(async () => {
  await endless?.stop();
  await cluster?.stop();
});

type Status = { reason?: string; message?: string; connectionState?: { lastObservedState?: string; address?: string } };
const statusOf = (source: AnyObject | undefined) => (source?.status ?? {}) as Status;

describe('a CatalogSource whose registry streams without end', { timeout: 90_000 }, () => {
  it('is TRANSIENT_FAILURE with the bound in its status, and is read with backoff while subscribers keep asking', async () => {
    const controller = await startController(cluster.server, client, {
      // Probes and resolution retries every 200 ms: without backoff each would read the stream again.
      catalogUnhealthyRetryMs: 200,
      catalogSourceTypes: createCatalogSourceTypes({ loadDirectory: (directory) => loadCatalog(directory), grpc: { client: { maxStreamMessages: 1_000 } } }),
    });
    try {
      const namespace = 'endless-catalog';
      await createOperatorNamespace(client, namespace);
      await client.create(grpcCatalogSource(namespace, 'endless', endless.address));
      await client.create(subscription(namespace, 'endless', { source: 'endless', sourceNamespace: namespace, channel: 'stable' }));

      const failed = await eventually(
        async () => {
          const status = statusOf(await get(client, Kinds.catalogSource, namespace, 'endless'));
          return status.connectionState?.lastObservedState === 'TRANSIENT_FAILURE' && status.message ? status : undefined;
        },
        { timeoutMs: 30_000, message: 'CatalogSource TRANSIENT_FAILURE with a message' },
      );
      expect(failed.reason).toBe('RegistryServerError');
      expect(failed.message).toMatch(
        new RegExp(`^cannot read the catalog \\(\\d+ failed attempt\\(s\\), the next at \\S+\\): CatalogSource ${namespace}/endless: ListBundles on ${endless.address}: the registry sent more than 1000 messages on one stream \\(limit maxStreamMessages\\)`),
      );

      // A window of four seconds: with 200 ms requeues and no backoff that was seven reads here; backing off
      // from 1 s (doubling, +20% jitter at most) it is at most three (at +1, +3 s, before +7 s).
      const before = endless.counts.listBundlesCalls;
      await sleep(4_000);
      const during = endless.counts.listBundlesCalls - before;
      expect(during).toBeLessThanOrEqual(3);
      // Every stream read was cancelled by the client (none is left running).
      await eventually(() => endless.counts.cancelledStreams === endless.counts.listBundlesCalls, { message: 'every stream cancelled' });
      // The API keeps being served by this process meanwhile.
      expect(statusOf(await get(client, Kinds.catalogSource, namespace, 'endless')).connectionState?.lastObservedState).toBe('TRANSIENT_FAILURE');
    } finally {
      await controller.stop();
    }
  });
});
